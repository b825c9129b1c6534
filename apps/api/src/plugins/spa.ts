import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import fastifyStatic from '@fastify/static';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  CAMPAIGN_COOKIE_DAYS,
  CHECKOUT_VARIANTS,
  COOKIES,
  LANGUAGES,
  type Language,
  type PublicBrand,
  entryAttribution,
} from '@warren/contract';
import { firstVisitLanguage, pageHints, readRoutePreloads, translationsVersion } from './page-hints.js';
import { escapeHtml } from '../lib/html.js';
import { STATIC_FILES_ROUTE } from '../lib/metrics.js';
import { xsrfKeyCookie } from './xsrf.js';

const MARKER = '<!--warren-brand-->';
const ROOT = '<div id="root"></div>';

/** An API answer a page shows on its first screen, under the query key the page reads it with (entry-server.tsx). */
interface PageData {
  key: readonly unknown[];
  data: unknown;
}
/** What entry-server.tsx's render gives back. */
interface FirstRender {
  html: string;
  title: string;
  lang?: Language;
  appLanguage?: Language;
  state?: unknown;
  /** This visitor's alone (a discount's countdown): not kept for others. */
  perVisitor?: boolean;
}
/** The page's answers send the visitor to another path of this site (a closed discount window: /checkout). */
interface Redirect {
  redirect: string;
}
/** apps/web/src/entry-server.tsx, built into dist-ssr beside dist (`<distDir>-ssr`). */
type RenderPage = (
  pathname: string,
  brand: PublicBrand,
  language: Language,
  data: readonly PageData[],
) => FirstRender | Redirect | null;
/** GET an API path as the visitor: its answer's `data`, or undefined. */
type ApiGet = (path: string) => Promise<unknown>;
interface ServerRender {
  render: RenderPage;
  /** The API answers the page needs (empty for most pages). */
  loadData: (pathname: string, get: ApiGet) => Promise<PageData[]>;
}
/** Rendered pages are kept this long (the footer's year must not outlive New Year by much)... */
const RENDER_CACHE_MS = 10 * 60_000;
/** ...and this many at most (brands x pages x languages is far fewer). */
const RENDER_CACHE_MAX = 500;

/**
 * The web app's server render of the signed-out pages, if it was built: the page shows as soon
 * as the HTML arrives, before the app's code. Without it (or if it fails) the browser renders
 * the page, as it always can.
 */
async function loadServerRender(distDir: string, log: FastifyBaseLogger): Promise<ServerRender | undefined> {
  const entry = path.join(`${path.resolve(distDir)}-ssr`, 'entry-server.js');
  if (!fs.existsSync(entry)) return undefined;
  try {
    const mod = (await import(pathToFileURL(entry).href)) as {
      renderPage?: (...args: unknown[]) => ReturnType<RenderPage>;
      loadPageData?: (pathname: string, get: ApiGet) => Promise<PageData[]>;
    };
    if (typeof mod.renderPage !== 'function') throw new Error('entry-server.js exports no renderPage');
    const translations: Partial<Record<Language, unknown>> = {};
    for (const language of LANGUAGES) {
      const file = path.join(distDir, 'assets', 'i18n', `${language}.json`);
      if (fs.existsSync(file)) translations[language] = JSON.parse(fs.readFileSync(file, 'utf8'));
    }
    const renderPage = mod.renderPage;
    const loadPageData = mod.loadPageData;
    // The signed-out pages' HTML depends on the path, the brand, the language and the API answers
    // it shows (prices in the visitor's currency) only (query parameters are read after the
    // take-over), so each is rendered once and kept a while: a render costs milliseconds of the
    // event loop, and these pages are open to anyone.
    const cache = new Map<string, { page: ReturnType<RenderPage>; until: number }>();
    const render: RenderPage = (pathname, brand, language, data) => {
      const dataKey = data.length ? crypto.createHash('sha256').update(JSON.stringify(data)).digest('base64url') : '';
      const key = `${pathname}\n${brand.id}\n${brand.productName}\n${brand.kind}\n${language}\n${dataKey}`;
      const hit = cache.get(key);
      if (hit && hit.until > Date.now()) return hit.page;
      const page = renderPage(pathname, brand, language, translations, data);
      // Only pages are kept: any path may be asked for, and misses must not push pages out; a
      // page made for one visitor (its countdown changes every second) would only push others out.
      if (!page || ('perVisitor' in page && page.perVisitor)) return page;
      if (cache.size >= RENDER_CACHE_MAX) cache.clear();
      cache.set(key, { page, until: Date.now() + RENDER_CACHE_MS });
      return page;
    };
    return { render, loadData: async (pathname, get) => (loadPageData ? loadPageData(pathname, get) : []) };
  } catch (err) {
    log.warn({ err }, 'server render not loaded: pages render in the browser');
    return undefined;
  }
}

const ENTRY_SCRIPT = /<script type="module" crossorigin src="(\/assets\/[^"]+)"><\/script>/;
const MODULE_PRELOAD = /<link rel="modulepreload"(?: crossorigin)? href="(\/[^"]+)">/g;

/**
 * A page the server rendered is on screen before any script runs: its code (the entry and the
 * modulepreloads) is handed to /boot.js, which asks for it after the first paint, so the page's
 * styles do not share a slow link with ~200 kB of script.
 */
function startAfterFirstPaint(html: string): string {
  const entry = ENTRY_SCRIPT.exec(html)?.[1];
  if (!entry) return html;
  const preloads = [...html.matchAll(MODULE_PRELOAD)].map((m) => m[1]!);
  const boot = `<script src="/boot.js" defer data-entry="${entry}" data-modulepreload="${preloads.join(' ')}"></script>`;
  return html
    .replace(ENTRY_SCRIPT, '')
    .replace(MODULE_PRELOAD, '')
    .replace('</head>', () => `${boot}</head>`);
}

/** The request headers an in-process API call made for the visitor carries: who they are to the API (address, cookies, brand, language), nothing else. */
const FORWARDED_HEADERS = ['host', 'cookie', 'accept-language', 'user-agent', 'x-forwarded-for'] as const;
const XSRF_COOKIES = new Set<string>([COOKIES.xsrf, xsrfKeyCookie(true), xsrfKeyCookie(false)]);

/**
 * GETs an API path in-process (app.inject) as the visitor who asked for the page: their address,
 * cookies and Host, so the answer is the one their browser would get (the country's currency, a
 * discount window). Cookies the API sets go into `setCookies` for the page's answer. Only
 * `/api/` paths; a failed call is undefined (the page then asks itself, as without a server render).
 */
function apiGetAs(app: FastifyInstance, request: FastifyRequest, setCookies: string[]): ApiGet {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return async (apiPath) => {
    if (!apiPath.startsWith('/api/')) return undefined;
    const res = await app.inject({ method: 'GET', url: apiPath, headers, remoteAddress: request.socket.remoteAddress });
    const cookies = res.headers['set-cookie'];
    // The page's own answer sets the XSRF pair; a second pair from the inner call would fight it.
    for (const c of [cookies ?? []].flat()) if (!XSRF_COOKIES.has(c.split('=')[0]!.trim())) setCookies.push(c);
    if (res.statusCode !== 200) return undefined;
    return (res.json() as { data?: unknown }).data;
  };
}

/** The query cache the page rendered with, for the browser's first render (main.tsx reads it). JSON in a script element, `<` escaped. */
function queryStateScript(state: unknown): string {
  return state
    ? `<script id="warren-query-state" type="application/json">${JSON.stringify(state).replace(/</g, '\\u003c')}</script>`
    : '';
}

/** A path of this site: one slash, then path characters (never `//host` or a scheme). */
const LOCAL_PATH = /^\/(?![/\\])[A-Za-z0-9/_-]*$/;

/**
 * Paths that are never a page of the web app, however they are spelt: the API and `/metrics`
 * (served only by the metrics listener; the public port answers 404, not the web app's page,
 * for `/Metrics`, `/metrics/`, `/%6detrics` or `/x/../metrics` too). The path is read the way
 * a browser or a proxy in front may read it: dot segments resolved (also `%2e`), `\` as `/`,
 * percent-decoded, repeated slashes collapsed, any case; one that does not decode is no page either,
 * nor is an absolute request target.
 */
export function isReservedPath(url: string): boolean {
  // An absolute request target (`GET http://host/path`) is no page request either.
  if (!/^[\\/]/.test(url)) return true;
  let p = url.split('?')[0]!;
  try {
    // Twice: `%2F..%2F` becomes a dot segment only once decoded.
    for (let i = 0; i < 2; i++) p = decodeURIComponent(new URL(`http://x/${p.replace(/^[\\/]+/, '')}`).pathname);
  } catch {
    return true;
  }
  p = p.toLowerCase().replace(/[\\/]+/g, '/');
  return /^\/(?:api|metrics)(?:$|[^a-z0-9_-])/.test(p);
}

const CAMPAIGN_COOKIE_SECONDS = CAMPAIGN_COOKIE_DAYS * 86_400;

/**
 * A checkout entry's marketing ids and referring site, as Set-Cookie values for the page's own
 * answer (contract attribution.ts): kept when the server answers, not once the app has loaded,
 * so a visitor who leaves at once is attributed too (issue 23). Readable by the app, which keeps
 * them in local storage as well; encoded, 365 days, Lax, Secure in production (as every cookie of
 * the API: behind the README's nginx the request itself is plain HTTP, X-Forwarded-Proto is never
 * read) and over HTTPS.
 */
function entryCookies(request: FastifyRequest, secureCookies: boolean): string[] {
  const [pathname = '/', query = ''] = request.url.split('?');
  if (!query || !Object.hasOwn(CHECKOUT_VARIANTS, pagePath(pathname))) return [];
  const host = request.headers.host ?? '';
  const referer = typeof request.headers.referer === 'string' ? request.headers.referer : '';
  const secure = secureCookies || request.protocol === 'https' ? '; Secure' : '';
  return entryAttribution(
    new URLSearchParams(query),
    referer,
    `${request.protocol}://${host}`,
    hasCookie(request.headers.cookie, COOKIES.referrer),
  ).map(
    ([name, value]) =>
      `${name}=${encodeURIComponent(value)}; Max-Age=${CAMPAIGN_COOKIE_SECONDS}; Path=/; SameSite=Lax${secure}`,
  );
}

/** `/checkout/` is the page `/checkout`, as the browser's router matches it. */
function pagePath(pathname: string): string {
  return pathname.length > 1 ? pathname.replace(/\/+$/, '') || '/' : pathname;
}

function hasCookie(header: string | undefined, name: string): boolean {
  return (header ?? '')
    .split(';')
    .some((part) => part.trim().startsWith(`${name}=`) && part.trim().length > name.length + 1);
}

/**
 * Serves the built web app on the API's origin. index.html gets the request's brand inlined
 * as JSON (no extra round trip). Returns the page sender: the app's not-found handler answers
 * every unknown non-API GET with it, and the client router decides.
 */
export async function registerSpa(
  app: FastifyInstance,
  distDir: string,
  brandOf: (r: FastifyRequest) => PublicBrand,
  { secureCookies }: { secureCookies: boolean },
): Promise<((request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>) | undefined> {
  const indexFile = path.join(distDir, 'index.html');
  if (!fs.existsSync(indexFile)) {
    app.log.warn({ distDir }, 'web app not built; run `npm run build` (npm start does it)');
    return undefined;
  }
  const template = fs.readFileSync(indexFile, 'utf8');
  const preloads = readRoutePreloads(distDir);
  const translations = translationsVersion(distDir);
  // The page names the translations' version for the app (lib/i18n.ts), which asks for exactly the URL the preload names.
  const translationsMeta = translations ? `<meta name="warren-i18n-version" content="${translations}">` : '';
  const serverRender = await loadServerRender(distDir, app.log);
  const render = async (request: FastifyRequest, setCookies: string[]): Promise<{ html: string } | Redirect> => {
    const brand = brandOf(request);
    const json = JSON.stringify(brand).replace(/</g, '\\u003c');
    const pathname = pagePath(request.url.split('?')[0] ?? '/');
    const language = firstVisitLanguage(request.headers['accept-language']);
    let first: FirstRender | null = null;
    // isUserExist (set at sign-in, cleared at sign-out): most likely signed in, and the app will
    // move on to the dashboard; a rendered sign-in form would only flash before it.
    const signedIn = hasCookie(request.headers.cookie, COOKIES.isUserExist);
    try {
      if (!signedIn && serverRender) {
        const data = await serverRender.loadData(pathname, apiGetAs(app, request, setCookies));
        const out = serverRender.render(pathname, brand, language, data);
        if (out && 'redirect' in out) {
          // Only a path of this site (the render's own, never the visitor's input); the query goes along.
          if (LOCAL_PATH.test(out.redirect))
            return {
              redirect: out.redirect + (request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : ''),
            };
        } else first = out;
      }
    } catch (err) {
      request.log.warn({ err }, 'server render failed: the browser renders the page');
    }
    const hints = pageHints(pathname, preloads, first?.appLanguage ?? language, {
      serverRendered: first !== null,
      signedIn,
      translations,
    });
    // The hints go after the build's own tags: the app's entry chunk must not queue behind them.
    const html = template
      .replace(MARKER, () => `${translationsMeta}<script id="warren-brand" type="application/json">${json}</script>`)
      .replace('</head>', () => `${hints}</head>`);
    if (!first) return { html };
    const page = first;
    // data-server-language tells the app which language the HTML speaks (main.tsx takes it over only if its own matches).
    return {
      html: startAfterFirstPaint(html)
        .replace(/<html lang="[^"]*"/, `<html lang="${page.lang ?? page.appLanguage ?? language}"`)
        .replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(page.title)}</title>`)
        // Replacement functions: the page's HTML may contain `$&`-like text that a replacement string would expand.
        .replace(
          ROOT,
          () =>
            `<div id="root" data-server-language="${page.appLanguage ?? language}">${page.html}</div>${queryStateScript(page.state)}`,
        ),
    };
  };

  // One route per built file (wildcard: false): each is marked so the HTTP metrics count them all
  // under one label instead of a series per asset and per deploy (issue 22: 111 asset routes).
  await app.register(async (files) => {
    files.addHook('onRoute', (route) => {
      route.config = { ...route.config, metricsRoute: STATIC_FILES_ROUTE };
    });
    await files.register(fastifyStatic, {
      root: distDir,
      index: false,
      wildcard: false,
      // The build writes .br and .gz beside each asset (apps/web/build/precompress.ts).
      preCompressed: true,
      cacheControl: false,
      // index.html is rendered per request; the preload map is read by the server only.
      allowedPath: (pathName) => pathName !== '/index.html' && pathName !== '/route-preloads.json',
      setHeaders(res, file) {
        // The answer depends on Accept-Encoding (preCompressed): caches must key on it.
        res.setHeader('vary', 'accept-encoding');
        // Vite fingerprints assets, so they can be cached forever; so are the translations asked for
        // under this build's version (?v=, translationsVersion); the rest revalidates.
        const fingerprinted = file.includes(`${path.sep}assets${path.sep}`) && /-[A-Za-z0-9_-]{8,}\./.test(file);
        const query = (res as { req?: { url?: string } }).req?.url?.split('?')[1];
        const versioned =
          !!translations &&
          file.includes(`${path.sep}assets${path.sep}i18n${path.sep}`) &&
          new URLSearchParams(query).get('v') === translations;
        res.setHeader('cache-control', fingerprinted || versioned ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  });
  const sendPage = async (request: FastifyRequest, reply: FastifyReply) => {
    const setCookies: string[] = [];
    const marketing = entryCookies(request, secureCookies);
    const rendered = await render(request, setCookies);
    setCookies.push(...marketing);
    if (setCookies.length) reply.header('set-cookie', setCookies);
    if ('redirect' in rendered) return reply.header('cache-control', 'no-store').redirect(rendered.redirect, 302);
    const { html } = rendered;
    // A page that carries this visitor's marketing cookies is theirs alone.
    reply
      .type('text/html; charset=utf-8')
      .header('cache-control', marketing.length ? 'private, no-cache' : 'no-cache')
      .header('vary', 'accept-encoding');
    // Rendered per request, so compressed per request (fast settings: it is ~20 kB with a page in it).
    const accepts = String(request.headers['accept-encoding'] ?? '');
    if (/\bbr\b/.test(accepts)) {
      return reply
        .header('content-encoding', 'br')
        .send(zlib.brotliCompressSync(html, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }));
    }
    if (/\bgzip\b/.test(accepts))
      return reply.header('content-encoding', 'gzip').send(zlib.gzipSync(html, { level: 6 }));
    return reply.send(html);
  };
  app.get('/', { schema: { hide: true } }, async (request, reply) => sendPage(request, reply));
  return sendPage;
}
