import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers.js';
import { firstVisitLanguage, translationsVersion } from '../src/plugins/page-hints.js';

// A web build like `vite build` leaves it: fingerprinted assets with .br and .gz beside them
// (apps/web/build/precompress.ts writes those; here the test writes them the same way).
const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-dist-'));
const js = 'export const answer = () => "the app";\n'.repeat(300);
fs.mkdirSync(path.join(dist, 'assets'));
fs.writeFileSync(
  path.join(dist, 'index.html'),
  '<!doctype html><html><head><!--warren-brand--><script type="module" crossorigin src="/assets/index-AbCd1234.js"></script></head><body><div id="root"></div></body></html>',
);
const asset = path.join(dist, 'assets/index-AbCd1234.js');
fs.writeFileSync(asset, js);
fs.writeFileSync(`${asset}.br`, zlib.brotliCompressSync(js));
fs.writeFileSync(`${asset}.gz`, zlib.gzipSync(js));
fs.mkdirSync(path.join(dist, 'assets/i18n'));
fs.writeFileSync(path.join(dist, 'assets/i18n/en.json'), JSON.stringify({ hello: 'Hello' }));
fs.writeFileSync(path.join(dist, 'assets/i18n/ru.json'), JSON.stringify({ hello: 'Привет' }));
const version = translationsVersion(dist);
fs.writeFileSync(
  path.join(dist, 'route-preloads.json'),
  JSON.stringify({
    '/dashboard': {
      js: ['/assets/AppLayout-AbCd1234.js', '/assets/DashboardPage-AbCd1234.js'],
      css: ['/assets/AppLayout-AbCd1234.css'],
    },
    '/plans': { js: ['/assets/PlansPage-AbCd1234.js'], css: [] },
    '/sign-in': { js: ['/assets/SignInPage-AbCd1234.js', '"><script>alert(1)</script>'], css: [] },
  }),
);

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ JOBS: 'false' }, {}, (config) => {
    config.webDistDir = dist;
  });
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(dist, { recursive: true, force: true });
});

describe('the web build is served compressed', () => {
  const get = (encoding?: string) =>
    t.app.inject({
      method: 'GET',
      url: '/assets/index-AbCd1234.js',
      headers: encoding ? { 'accept-encoding': encoding } : {},
    });

  it('brotli when the browser takes it, with the type and the long cache of the original', async () => {
    const res = await get('gzip, deflate, br, zstd');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toMatch(/^(application|text)\/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(String(res.headers.vary ?? '')).toMatch(/accept-encoding/i);
    expect(zlib.brotliDecompressSync(res.rawPayload).toString()).toBe(js);
    expect(res.rawPayload.length).toBeLessThan(js.length / 10);
  });

  it('gzip for browsers without brotli, and the plain file for clients that take neither', async () => {
    const gz = await get('gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.rawPayload).toString()).toBe(js);
    const plain = await get();
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(js);
  });

  it('never serves the compressed files under their own names or the raw index.html', async () => {
    for (const url of ['/assets/index-AbCd1234.js.br', '/index.html']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.body).not.toContain('<!--warren-brand-->');
    }
  });
});

describe('paths that are not pages (issue 20, finding 10)', () => {
  it('/metrics and the API, however spelt, answer 404 on the public port, never the web page', async () => {
    for (const url of [
      '/metrics',
      '/Metrics',
      '/METRICS',
      '/metrics/',
      '/%6detrics',
      '/%6Detrics/',
      '/metrics?x=1',
      '//metrics',
      '/./metrics',
      '/api/../metrics',
      '/x%2F..%2Fmetrics',
      '/metrics;x',
      '/Api/nope',
      '/%61pi/nope',
      '/api',
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(String(res.headers['content-type']), url).not.toMatch(/html/);
      expect(res.body, url).not.toContain('<html');
    }
    // The pages themselves still are the web app.
    for (const url of ['/', '/sign-in', '/dashboard/', '/metricsx'])
      expect(String((await t.app.inject({ method: 'GET', url })).headers['content-type']), url).toMatch(/text\/html/);
  });
});

describe('index.html tells the browser what the page will need', () => {
  const page = (url: string, acceptLanguage?: string, cookie = 'isUserExist=1') =>
    t.app
      .inject({
        method: 'GET',
        url,
        headers: { cookie, ...(acceptLanguage ? { 'accept-language': acceptLanguage } : {}) },
      })
      .then((r) => r.body);

  it("preloads the page's own code and styles and the visitor's translations", async () => {
    const html = await page('/dashboard?from=mail', 'ru-RU,ru;q=0.9,en;q=0.8');
    expect(html).toContain('<link rel="modulepreload" href="/assets/AppLayout-AbCd1234.js">');
    expect(html).toContain('<link rel="modulepreload" href="/assets/DashboardPage-AbCd1234.js">');
    // crossorigin: the app's loader asks for stylesheets in CORS mode, and only a preload in the same mode is reused.
    expect(html).toContain('<link rel="preload" href="/assets/AppLayout-AbCd1234.css" as="style" crossorigin>');
    expect(html).toContain(`<link rel="preload" href="/assets/i18n/ru.json?v=${version}" as="fetch" crossorigin>`);
    // The app asks for the translations under the version the page names (apps/web/src/lib/i18n.ts).
    expect(html).toContain(`<meta name="warren-i18n-version" content="${version}">`);
    expect(html).not.toContain('PlansPage');
    // After the build's own tags, so the entry chunk is requested first.
    expect(html.indexOf('modulepreload')).toBeGreaterThan(html.indexOf('src="/assets/index-AbCd1234.js"'));
    expect(html.indexOf('modulepreload')).toBeLessThan(html.indexOf('</head>'));
  });

  it('plan paths share the plans page; unknown paths get only the translations; nothing unsafe is written', async () => {
    expect(await page('/plans/1-year/')).toContain('/assets/PlansPage-AbCd1234.js');
    const unknown = await page('/no-such-page', 'de-DE');
    expect(unknown).not.toContain('modulepreload');
    expect(unknown).toContain(`/assets/i18n/en.json?v=${version}`);
    const signIn = await page('/sign-in', undefined, '');
    expect(signIn).toContain('/assets/SignInPage-AbCd1234.js');
    expect(signIn).not.toContain('alert(1)');
  });

  it('no hints for a page the visitor will be sent away from', async () => {
    // Without a session a logged-in page goes to /sign-in; with one, a sign-in page goes to the dashboard.
    expect(await page('/dashboard', undefined, '')).not.toContain('AppLayout-AbCd1234');
    expect(await page('/plans/1-year', undefined, 'isUserExist=')).not.toContain('PlansPage-AbCd1234');
    expect(await page('/sign-in')).not.toContain('SignInPage-AbCd1234');
    expect(await page('/dashboard')).toContain('AppLayout-AbCd1234');
  });

  it("translations under this build's version are cached for a year; any other way of asking revalidates", async () => {
    expect(version).toMatch(/^[A-Za-z0-9_-]{12}$/);
    const cacheOf = async (url: string) => {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.json(), url).toEqual({ hello: 'Hello' });
      return res.headers['cache-control'];
    };
    expect(await cacheOf(`/assets/i18n/en.json?v=${version}`)).toBe('public, max-age=31536000, immutable');
    expect(await cacheOf('/assets/i18n/en.json')).toBe('no-cache');
    expect(await cacheOf('/assets/i18n/en.json?v=older-build')).toBe('no-cache');
    // A changed file is a new version (a new build's texts are never served from an old cache entry).
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-dist-'));
    fs.cpSync(path.join(dist, 'assets'), path.join(other, 'assets'), { recursive: true });
    fs.writeFileSync(path.join(other, 'assets/i18n/en.json'), JSON.stringify({ hello: 'Hello!' }));
    expect(translationsVersion(other)).not.toBe(version);
    fs.rmSync(other, { recursive: true, force: true });
  });

  it('the preload map itself is not served', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/route-preloads.json' });
    expect(res.body).not.toContain('AppLayout-AbCd1234');
  });

  it('picks the language the web app will pick on a first visit', () => {
    expect(firstVisitLanguage('zh-CN,zh;q=0.9')).toBe('zh');
    expect(firstVisitLanguage('ru')).toBe('ru');
    expect(firstVisitLanguage('de-DE,ru;q=0.9')).toBe('en');
    expect(firstVisitLanguage(undefined)).toBe('en');
    expect(firstVisitLanguage('')).toBe('en');
  });
});

describe('the built files in the HTTP metrics', () => {
  it('share one route label, however many files the build has (issue 22: a series per asset and per deploy)', async () => {
    for (const url of ['/assets/index-AbCd1234.js', '/assets/i18n/en.json', '/assets/i18n/ru.json']) {
      expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(200);
    }
    const { values } = await t.app.services.metrics.httpRequests.get();
    const routes = new Set(values.map((v) => v.labels.route));
    expect([...routes].filter((r) => String(r).startsWith('/assets/'))).toEqual([]);
    const files = values.filter((v) => v.labels.route === 'static files' && v.labels.status === '200');
    expect(files.reduce((n, v) => n + v.value, 0)).toBeGreaterThanOrEqual(3);
  });
});
