import fs from 'node:fs';
import zlib from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers.js';
import { signFirstVisit } from '../src/modules/billing/discount.js';

// A web build with its server render bundle beside it (`vite build --ssr` writes dist-ssr).
// The bundle here is a stand-in that echoes what the server hands it: this file tests how the
// API uses a render, not the render itself (apps/web/src/entry-server.test.tsx and the browser
// tests do that with the real one).
const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-ssr-dist-'));
const ssr = `${dist}-ssr`;
fs.mkdirSync(path.join(dist, 'assets', 'i18n'), { recursive: true });
fs.mkdirSync(ssr);
fs.writeFileSync(
  path.join(dist, 'index.html'),
  '<!doctype html><html lang="en" data-mantine-color-scheme="light"><head><title>Warren</title><!--warren-brand-->' +
    '<script type="module" crossorigin src="/assets/index-AbCd1234.js"></script><link rel="modulepreload" crossorigin href="/assets/ui-AbCd1234.js">' +
    '</head><body><div id="root"></div></body></html>',
);
fs.writeFileSync(path.join(dist, 'assets', 'i18n', 'en.json'), JSON.stringify({ hello: 'hello' }));
fs.writeFileSync(
  path.join(dist, 'route-preloads.json'),
  JSON.stringify({
    '/sign-in': { js: ['/assets/SignInPage-AbCd1234.js'], css: ['/assets/SignInPage-AbCd1234.css'] },
    '/dashboard': { js: ['/assets/DashboardPage-AbCd1234.js'], css: ['/assets/DashboardPage-AbCd1234.css'] },
  }),
);
fs.writeFileSync(path.join(dist, 'assets', 'i18n', 'ru.json'), JSON.stringify({ hello: 'привет' }));
fs.writeFileSync(
  path.join(ssr, 'entry-server.js'),
  `export async function loadPageData(pathname, get) {
    if (pathname === '/checkout-25') return loadDiscountData(get);
    if (pathname !== '/checkout-15') return [];
    const ip = await get('/api/ip/info');
    const prices = await get('/api/billing/getLandingPriceList?selectedPlan=discount-15&currency=' + ip.currency);
    return [
      { key: ['ip', 'info'], data: ip },
      { key: ['prices'], data: { plans: prices.plans.length, note: '</script><script>alert(1)</script>' } },
      { key: ['missing'], data: (await get('/api/no-such-call')) ?? null },
      { key: ['outside'], data: (await get('/sign-in')) ?? null },
    ];
  }
  export async function loadDiscountData(get) {
    return [{ key: ['prices'], data: await get('/api/billing/getLandingPriceList?selectedPlan=discount-25&currency=USD') }];
  }
  export function renderPage(url, brand, language, translations, data = []) {
    if (url.startsWith('/boom')) throw new Error('render failed');
    if (url === '/checkout-25') {
      const prices = data[0].data;
      if (prices.priceList !== 'discount-25') return { redirect: '/checkout' };
      globalThis.warrenCountdowns = (globalThis.warrenCountdowns ?? 0) + 1;
      return { html: '<main>' + prices.offerSecondsLeft + ' s left, render ' + globalThis.warrenCountdowns + '</main>', title: 'Checkout', perVisitor: true };
    }
    if (url === '/checkout-lite') return { redirect: '//evil.example/checkout' };
    if (url === '/checkout-15') return { html: '<main>' + data.map((d) => d.key[0] + '=' + JSON.stringify(d.data)).join(';') + '</main>', title: 'Checkout', state: { queries: data } };
    if (!url.startsWith('/sign-in')) return null;
    globalThis.warrenRenders = (globalThis.warrenRenders ?? 0) + 1;
    return { html: '<main>' + [brand.productName, language, url, translations[language].hello, 'render ' + globalThis.warrenRenders].join('|') + ' costs $& $1</main>', title: 'Sign <in> & "go"' };
  }\n`,
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
  fs.rmSync(ssr, { recursive: true, force: true });
});

const get = (url: string, acceptLanguage = 'ru-RU,ru;q=0.9') =>
  t.app.inject({ method: 'GET', url, headers: { 'accept-language': acceptLanguage } });

describe('signed-out pages come rendered from the server', () => {
  it("keeps a checkout entry's marketing ids as cookies in its own answer, before any script runs (issue 23); bad values are left out", async () => {
    const cookiesOf = (res: { headers: Record<string, unknown> }) =>
      [res.headers['set-cookie'] ?? []].flat().map(String);
    const res = await t.app.inject({
      method: 'GET',
      url: '/checkout?clickID=clk-42&referralID=r_7&vcommID=v1&myleadID=m.2&friendID=f9&a_aid=aff1&voluum_id=vol:3&utm_source=news%20letter&utm_campaign=%3Cscript%3E&utm_medium=cpc',
      headers: { referer: 'https://ads.example/landing?x=1' },
    });
    expect(res.statusCode).toBe(200);
    const set = cookiesOf(res);
    for (const c of [
      'click_id=clk-42',
      'ref=r_7',
      'vcomm_id=v1',
      'mylead_id=m.2',
      'friend_id=f9',
      'a_aid=aff1',
      'vl-cid=vol%3A3',
      'utm_source=news%20letter',
      'utm_medium=cpc',
      'referrer=https%3A%2F%2Fads.example%2Flanding%3Fx%3D1',
    ]) {
      expect(
        set.find((x) => x.startsWith(`${c};`)),
        c,
      ).toMatch(/; Max-Age=31536000; Path=\/; SameSite=Lax$/);
    }
    // A campaign word with markup is not kept; nothing is HttpOnly (the app reads them) and the page is this visitor's.
    expect(set.some((x) => x.startsWith('utm_campaign='))).toBe(false);
    expect(set.some((x) => /HttpOnly/i.test(x) && /^(click_id|ref|utm_source)=/.test(x))).toBe(false);
    expect(res.headers['cache-control']).toBe('private, no-cache');
    // First touch: a referrer already kept is not replaced; our own pages are no referrer; other pages set nothing.
    const again = await t.app.inject({
      method: 'GET',
      url: '/checkout-ru?utm_source=x',
      headers: { referer: 'https://other.example/', cookie: 'referrer=https%3A%2F%2Fads.example%2F' },
    });
    expect(cookiesOf(again).some((x) => x.startsWith('referrer='))).toBe(false);
    expect(cookiesOf(again).some((x) => x.startsWith('utm_source=x;'))).toBe(true);
    const own = await t.app.inject({
      method: 'GET',
      url: '/checkout?clickID=a',
      headers: { host: 'localhost', referer: 'http://localhost/plans' },
    });
    expect(cookiesOf(own).some((x) => x.startsWith('referrer='))).toBe(false);
    const hostile = await t.app.inject({
      method: 'GET',
      url: `/checkout?clickID=${'a'.repeat(201)}&referralID=a%0d%0aSet-Cookie:%20x=1`,
    });
    expect(cookiesOf(hostile).filter((x) => /^(click_id|ref|x)=/.test(x))).toEqual([]);
    const signIn = await t.app.inject({ method: 'GET', url: '/sign-in?clickID=abc' });
    expect(cookiesOf(signIn).some((x) => x.startsWith('click_id='))).toBe(false);
    expect(signIn.headers['cache-control']).toBe('no-cache');
  });

  it('marks those cookies Secure in production, where the request itself is plain HTTP behind the TLS proxy', async () => {
    const prod = await createTestApp(
      { JOBS: 'false', NODE_ENV: 'production', APP_SECRET: 'p'.repeat(40), ALLOW_NO_CAPTCHA_IN_PRODUCTION: 'true' },
      {},
      (config) => {
        config.webDistDir = dist;
      },
    );
    try {
      const res = await prod.app.inject({ method: 'GET', url: '/checkout?clickID=clk-9' });
      const set = [res.headers['set-cookie'] ?? []].flat().map(String);
      expect(set.find((x) => x.startsWith('click_id=clk-9;'))).toMatch(/; SameSite=Lax; Secure$/);
    } finally {
      await prod.close();
    }
  });

  it("puts the page in the root with its language, title and the request's brand, text kept as it is", async () => {
    const res = await get('/sign-in?ref=mail');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const html = res.body;
    expect(html).toContain('<html lang="ru" data-mantine-color-scheme="light">');
    expect(html).toContain('<title>Sign &lt;in&gt; &amp; &quot;go&quot;</title>');
    // The path only: query parameters are read after the app takes over.
    expect(html).toMatch(
      /<div id="root" data-server-language="ru"><main>Warren VPN\|ru\|\/sign-in\|привет\|render \d+ costs \$& \$1<\/main><\/div>/,
    );
    expect(html).toContain('<script id="warren-brand" type="application/json">');
    // Shown before its code runs, so its styles apply from the start.
    expect(html).toContain('<link rel="stylesheet" href="/assets/SignInPage-AbCd1234.css">');
  });

  it("hands the app's code to boot.js, which asks for it after the first paint; the page goes compressed", async () => {
    const html = (await get('/sign-in')).body;
    expect(html).not.toContain('<script type="module"');
    expect(html).not.toContain('rel="modulepreload"');
    expect(html).toContain(
      '<script src="/boot.js" defer data-entry="/assets/index-AbCd1234.js" data-modulepreload="/assets/ui-AbCd1234.js /assets/SignInPage-AbCd1234.js"></script></head>',
    );
    const br = await t.app.inject({
      method: 'GET',
      url: '/sign-in',
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(br.headers['content-encoding']).toBe('br');
    expect(String(br.headers.vary)).toMatch(/accept-encoding/i);
    expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toContain('data-server-language="en"');
    // A page the browser renders keeps the app's own tags.
    const plain = (await get('/dashboard')).body;
    expect(plain).toContain('<script type="module" crossorigin src="/assets/index-AbCd1234.js"></script>');
    expect(plain).not.toContain('boot.js');
  });

  it('renders a page once per brand and language, whatever the query', async () => {
    const body = async (url: string, lang?: string) => /render (\d+)/.exec((await get(url, lang)).body)![1];
    const first = await body('/sign-in?a=1', 'en-US');
    expect(await body('/sign-in?b=2', 'en-US')).toBe(first);
    expect(await body('/sign-in', 'de-DE,de')).toBe(first);
    expect(await body('/sign-in', 'ru')).not.toBe(first);
    // Paths that are not pages (anyone may ask for any) do not push the kept pages out.
    for (let i = 0; i < 600; i++) await get(`/no-such-page-${i}`, 'en-US');
    expect(await body('/sign-in', 'en-US')).toBe(first);
  });

  it("a page's API answers are asked for as the visitor, rendered with it and handed to the app; cookies the API sets go with the page", async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/checkout-15',
      headers: { 'accept-language': 'en', cookie: 'a=b' },
    });
    expect(res.statusCode).toBe(200);
    // The currency the visitor's country gets (loopback: DEFAULT_COUNTRY, US), and its prices.
    expect(res.body).toMatch(/<main>ip=\{"code":"US","currency":"USD"\};prices=\{"plans":[1-9]/);
    // Calls that fail, or outside /api/, give nothing: the page asks for those itself.
    expect(res.body).toContain('missing=null;outside=null</main>');
    // The cache goes to the browser as JSON no page text can close early.
    const state = /<script id="warren-query-state" type="application\/json">([^<]*)<\/script>/.exec(res.body);
    expect(state).not.toBeNull();
    expect(JSON.parse(state![1]!).queries[1].data.note).toBe('</script><script>alert(1)</script>');
    // The discount window the price list started is the visitor's cookie, once (the inner call's XSRF pair is not passed on).
    const cookies = [res.headers['set-cookie'] ?? []].flat();
    expect(cookies.filter((c) => c.startsWith('discount15FirstVisit='))).toHaveLength(1);
    expect(cookies.filter((c) => c.startsWith('XSRF-TOKEN='))).toHaveLength(1);
    // A visitor whose window is running keeps it: no new cookie.
    const again = await t.app.inject({
      method: 'GET',
      url: '/checkout-15',
      headers: { cookie: cookies.map((c) => c.split(';')[0]).join('; ') },
    });
    expect(
      [again.headers['set-cookie'] ?? []].flat().filter((c) => c.startsWith('discount15FirstVisit=')),
    ).toHaveLength(0);
    // Pages without data carry no cache.
    expect((await get('/sign-in')).body).not.toContain('warren-query-state');
  });

  it('the language is the one the app will pick on a first visit', async () => {
    expect((await get('/sign-in', 'de-DE,de')).body).toContain('data-server-language="en"><main>Warren VPN|en|');
  });

  it('pages the render does not make, a render that fails and returning visitors get the plain page the browser renders', async () => {
    for (const url of ['/dashboard', '/boom']) {
      const res = await get(url);
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('<div id="root"></div>');
      expect(res.body).toContain('<html lang="en"');
      expect(res.body).not.toContain('data-server-language');
    }
    // A visitor who signed in on this browser before goes on to the dashboard: no sign-in form to flash.
    const returning = await t.app.inject({ method: 'GET', url: '/sign-in', headers: { cookie: 'a=b; isUserExist=1' } });
    expect(returning.body).toContain('<div id="root"></div>');
    // A page the browser renders keeps its styles as a preload, applied by the app's code.
    const dashboard = await t.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie: 'isUserExist=1' } });
    expect(dashboard.body).toContain(
      '<link rel="preload" href="/assets/DashboardPage-AbCd1234.css" as="style" crossorigin>',
    );
  });

  it('/checkout/ and /sign-in/ are the pages without the slash, as the browser router matches them', async () => {
    expect((await get('/sign-in/', 'en')).body).toMatch(/data-server-language="en"><main>Warren VPN\|en\|\/sign-in\|/);
    const checkout = await t.app.inject({
      method: 'GET',
      url: '/checkout-15/?utm_source=x',
      headers: { 'accept-language': 'en' },
    });
    expect(checkout.body).toMatch(/<main>ip=\{"code":"US","currency":"USD"\};prices=/);
    expect(checkout.body).toContain('<script id="warren-query-state"');
  });

  it("a discounted checkout: the window the server starts comes with the page, made for this visitor; a closed window is a redirect to /checkout with the query; the render's redirect stays on this site", async () => {
    const first = await t.app.inject({ method: 'GET', url: '/checkout-25', headers: { 'accept-language': 'en' } });
    expect(first.statusCode).toBe(200);
    expect(first.body).toMatch(/<main>86(400|39\d) s left, render \d+<\/main>/);
    const window = [first.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith('discount25FirstVisit='));
    expect(window).toBeDefined();
    // A countdown is this visitor's: rendered for each visit, never served from the kept pages.
    const renders = (body: string) => Number(/render (\d+)/.exec(body)![1]);
    const again = await t.app.inject({
      method: 'GET',
      url: '/checkout-25',
      headers: { 'accept-language': 'en', cookie: window!.split(';')[0]! },
    });
    expect(renders(again.body)).toBe(renders(first.body) + 1);

    // A day and a minute after the first visit, signed by the server: the window is closed there, whatever the browser's clock says.
    const dayAgo = Date.now() - 24 * 3600_000 - 60_000;
    const expired = `discount25FirstVisit=${signFirstVisit(t.config.appSecret, 'discount25FirstVisit', dayAgo)}`;
    const closed = await t.app.inject({
      method: 'GET',
      url: '/checkout-25?utm_source=late&a=1',
      headers: { 'accept-language': 'en', cookie: expired },
    });
    expect(closed.statusCode).toBe(302);
    expect(closed.headers.location).toBe('/checkout?utm_source=late&a=1');
    expect(closed.headers['cache-control']).toBe('no-store');
    expect(closed.body).not.toContain('s left');
    // The same time, not signed by the server: a new window (the cookie cannot be moved, only lost).
    const forged = await t.app.inject({
      method: 'GET',
      url: '/checkout-25',
      headers: { 'accept-language': 'en', cookie: `discount25FirstVisit=${dayAgo}.${'A'.repeat(43)}` },
    });
    expect(forged.statusCode).toBe(200);
    expect(forged.body).toMatch(/86(400|39\d) s left/);

    // A redirect off this site (the render must never make one) is not followed: the plain page.
    const off = await get('/checkout-lite');
    expect(off.statusCode).toBe(200);
    expect(off.body).toContain('<div id="root"></div>');
  });
});
