import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { APP_ROUTES, isAuthRoute, languageFromTag, type Language } from '@warren/contract';

/** What apps/web/build/route-preloads.ts writes: a path's page files the HTML does not already load. */
export type RoutePreloads = Record<string, { js: string[]; css: string[] }>;

export function readRoutePreloads(distDir: string): RoutePreloads {
  try {
    return JSON.parse(fs.readFileSync(path.join(distDir, 'route-preloads.json'), 'utf8')) as RoutePreloads;
  } catch {
    return {}; // an older build: pages still load, one round trip later
  }
}

/**
 * The language the web app will pick on a first visit: the browser's first language if the
 * app speaks it, else English (spec section 3; navigator.language is the first entry of
 * Accept-Language). A stored choice can differ; then the hint costs one small download.
 */
export function firstVisitLanguage(acceptLanguage: string | undefined): Language {
  return languageFromTag(acceptLanguage?.split(',')[0]);
}

const SAFE_URL = /^\/[A-Za-z0-9/_.-]+$/;

/** A page of the logged-in shell: every one of them sends a visitor without a session to /sign-in. */
function needsSession(pathname: string): boolean {
  return (APP_ROUTES as readonly string[]).includes(pathname) || pathname.startsWith('/plans/');
}

/**
 * The translations' version: a hash of dist/assets/i18n/*.json, read once at start. The app asks
 * for `/assets/i18n/{lang}.json?v=VERSION` (the page names the version in a meta tag), and such a
 * request is cached for a year: a returning visitor's first render no longer waits a round trip to
 * revalidate them, and a new build's texts come with a new version. Empty without translations.
 */
export function translationsVersion(distDir: string): string {
  const dir = path.join(distDir, 'assets', 'i18n');
  let files: string[];
  try {
    files = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort();
  } catch {
    return '';
  }
  if (!files.length) return '';
  const hash = crypto.createHash('sha256');
  for (const f of files)
    hash
      .update(f)
      .update('\0')
      .update(fs.readFileSync(path.join(dir, f)))
      .update('\0');
  return hash.digest('base64url').slice(0, 12);
}

/** The translations' URL for a language (the web app's lib/i18n.ts builds the same). */
export function translationsHref(language: Language, version: string): string {
  return `/assets/i18n/${language}.json${version ? `?v=${version}` : ''}`;
}

export interface HintOptions {
  /** The server put the page's HTML in: its styles are linked, not preloaded. */
  serverRendered?: boolean;
  /** The browser has the isUserExist cookie (set at sign-in, cleared at sign-out). */
  signedIn?: boolean;
  /** translationsVersion(), for the translations' preload. */
  translations?: string;
}

/**
 * `<link>` hints for index.html: the page's code (modulepreload) and styles, and the
 * translations, so they download with the app instead of after it runs. A page the visitor
 * will not stay on gets no hints (a signed-out visitor on a logged-in page goes to /sign-in, a
 * signed-in one on an auth page to the dashboard): an unused preload costs bandwidth and a
 * console warning. Style preloads say `crossorigin` because the app's loader (Vite's preload
 * helper) asks for stylesheets in CORS mode; a preload in another mode is not reused, fetched
 * twice, and warned about.
 */
export function pageHints(
  pathname: string,
  preloads: RoutePreloads,
  language: Language,
  { serverRendered = false, signedIn = false, translations = '' }: HintOptions = {},
): string {
  const clean = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  const links = [`<link rel="preload" href="${translationsHref(language, translations)}" as="fetch" crossorigin>`];
  const leaves = signedIn ? isAuthRoute(clean) : needsSession(clean);
  const route = leaves
    ? undefined
    : (preloads[clean] ?? (clean.startsWith('/plans/') ? preloads['/plans'] : undefined));
  for (const href of route?.js ?? []) if (SAFE_URL.test(href)) links.push(`<link rel="modulepreload" href="${href}">`);
  // A page the server rendered shows before its code runs: its styles must apply from the first paint
  // (the app's loader finds the stylesheet already there and adds no second one).
  for (const href of route?.css ?? []) {
    if (SAFE_URL.test(href))
      links.push(
        serverRendered
          ? `<link rel="stylesheet" href="${href}">`
          : `<link rel="preload" href="${href}" as="style" crossorigin>`,
      );
  }
  return links.join('');
}
