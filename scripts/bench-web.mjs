#!/usr/bin/env node
// Web bench: initial JS + CSS (gzip) that a first visit to /sign-in and to /dashboard loads,
// measured in Debian's chromium against the real server. Target: at most 170 kB gzip each.
// Then Lighthouse (mobile: its default config, simulated throttling, Moto G Power emulation;
// performance category only), 3 runs per page, medians, for every entry page strangers arrive on
// (/sign-in, /sign-up, every checkout variant, the iOS pages) and the dashboard's first visit.
// Targets: performance >= 95, TBT <= 200 ms. For the dashboard, what returning customers live: a
// repeat visit with the assets cached (target LCP <= 1.5 s) and sign-in to the dashboard (<= 1 s,
// timed in the browser, with and without Lighthouse's mobile network and CPU figures applied).
// LH_PAGES=/sign-in,/checkout limits the Lighthouse pages. Reports only: the exit code stays 0.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium } from '@playwright/test';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import puppeteer from 'puppeteer-core';
import { CHECKOUT_ROUTES, IOS_ROUTES } from '../packages/contract/src/routes.ts';

const root = path.resolve(import.meta.dirname, '..');
const TARGET_KB = 170;
const TARGET_PERF = 95;
const TARGET_TBT_MS = 200;
const TARGET_REPEAT_LCP_MS = 1500;
const TARGET_SIGN_IN_MS = 1000;
const ENTRY_PAGES = ['/sign-in', '/sign-up', ...CHECKOUT_ROUTES, ...IOS_ROUTES];
const LH_PAGES = process.env.LH_PAGES ? new Set(process.env.LH_PAGES.split(',')) : null;
// LH_RUNS=0 measures sizes only (a quick check while trimming).
const LH_RUNS = Number(process.env.LH_RUNS ?? 3);
const CHROME_PATH = '/usr/bin/chromium';
const port = 8390 + Math.floor(Math.random() * 100);
const origin = `http://127.0.0.1:${port}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-webbench-'));

// Always build: a stale dist would measure yesterday's app.
{
  console.log('web bench: building the web app');
  await new Promise((resolve, reject) =>
    spawn('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' }).on('exit', (c) =>
      c === 0 ? resolve() : reject(new Error('build failed')),
    ),
  );
}

/**
 * The stack's own floor: apps/web/bench/floor is the smallest first screen the prescribed libraries
 * make (React, React Router data router, TanStack Query, Mantine provider + input + button, react-hook-form, i18next,
 * ky). Everything it emits loads up front; gzip -9 of its JS and CSS, like the pages below.
 */
async function stackFloor() {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-floor-'));
  try {
    await new Promise((resolve, reject) =>
      spawn('npx', ['vite', 'build', '--config', 'apps/web/bench/floor/vite.config.ts', '--outDir', outDir], {
        cwd: root,
        stdio: 'inherit',
      }).on('exit', (c) => (c === 0 ? resolve() : reject(new Error('floor build failed')))),
    );
  } catch (err) {
    fs.rmSync(outDir, { recursive: true, force: true });
    throw err;
  }
  const files = fs.readdirSync(path.join(outDir, 'assets')).filter((f) => /\.(js|css)$/.test(f));
  const sum = (ext) =>
    files
      .filter((f) => f.endsWith(ext))
      .reduce((a, f) => a + zlib.gzipSync(fs.readFileSync(path.join(outDir, 'assets', f)), { level: 9 }).length, 0);
  return { js: sum('.js'), css: sum('.css'), dir: outDir };
}
const floor = await stackFloor();

/** Serves the floor build like the real server serves dist: brotli (q11) when asked, long cache for assets. */
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css' };
const floorServer = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  if (url.pathname.startsWith('/api/')) return res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  const file = url.pathname.startsWith('/assets/')
    ? path.join(floor.dir, path.normalize(url.pathname).replace(/^\/+/, ''))
    : path.join(floor.dir, 'index.html');
  if (!file.startsWith(floor.dir) || !fs.existsSync(file)) return res.writeHead(404).end();
  const body = fs.readFileSync(file);
  const headers = {
    'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
    'cache-control': file.endsWith('.html') ? 'no-cache' : 'public, max-age=31536000, immutable',
  };
  if (/\bbr\b/.test(req.headers['accept-encoding'] ?? '')) {
    res
      .writeHead(200, { ...headers, 'content-encoding': 'br', vary: 'Accept-Encoding' })
      .end(zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }));
  } else res.writeHead(200, headers).end(body);
});
await new Promise((resolve) => floorServer.listen(0, '127.0.0.1', resolve));
const floorOrigin = `http://127.0.0.1:${floorServer.address().port}`;

const server = spawn(process.execPath, ['--import', 'tsx', 'apps/api/src/server.ts'], {
  cwd: root,
  env: {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    JOBS: 'false',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (c) => {
    out += c;
    if (out.includes('Server listening')) resolve();
  });
  server.on('exit', (code) => reject(new Error(`server exited ${code}`)));
});

const PASSWORD = 'correct horse battery';

async function api(method, url, body, token, { cookie, xsrf }) {
  const res = await fetch(`${origin}${url}`, {
    method,
    headers: {
      'content-type': 'application/json',
      cookie,
      'x-xsrf-token': decodeURIComponent(xsrf),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return res.json();
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});

/** Loads a page in a fresh context and sums its JS and CSS: raw bytes and gzip bytes. */
async function measure(pathname, session) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  if (session)
    await context.addInitScript((s) => {
      localStorage.setItem('token', s.token);
      localStorage.setItem('user', JSON.stringify(s.user));
    }, session);
  const page = await context.newPage();
  const bodies = [];
  page.on('response', (res) => {
    const type = res.request().resourceType();
    if (type === 'script' || type === 'stylesheet')
      bodies.push(
        res
          .body()
          .then((b) => ({ url: res.url(), type, b }))
          .catch(() => null),
      );
  });
  await page.goto(`${origin}${pathname}`, { waitUntil: 'networkidle' });
  const landed = new URL(page.url()).pathname;
  const files = (await Promise.all(bodies)).filter(Boolean);
  await context.close();
  const sum = (type) =>
    files
      .filter((f) => f.type === type)
      .reduce((a, f) => ({ raw: a.raw + f.b.length, gz: a.gz + zlib.gzipSync(f.b, { level: 9 }).length }), {
        raw: 0,
        gz: 0,
      });
  return { landed, js: sum('script'), css: sum('stylesheet'), files: files.length };
}

try {
  const signIn = await measure('/sign-in');
  // A verified user for the dashboard.
  const brand = await fetch(`${origin}/api/brand`);
  // Every cookie the server set (the XSRF token and the httpOnly key it is bound to), sent back like a browser.
  const cookie = brand.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const xsrf = { cookie, xsrf: /XSRF-TOKEN=([^;]+)/.exec(cookie)[1] };
  const email = `bench.${Date.now()}@example.com`;
  const reg = await api(
    'POST',
    '/api/users/register',
    { email, password: PASSWORD, password_confirmation: PASSWORD },
    null,
    xsrf,
  );
  // The verification mail is sent after the answer: poll the outbox (bounded) until it is there.
  let mails = { data: [] };
  for (let i = 0; i < 100 && mails.data.length === 0; i++) {
    if (i) await new Promise((r) => setTimeout(r, 100));
    mails = await (await fetch(`${origin}/api/dev/mail?to=${encodeURIComponent(email)}`)).json();
  }
  if (mails.data.length === 0) throw new Error(`no verification mail for ${email}`);
  const [, userId, token] = /userId=(\d+)&token=([^\s&]+)/.exec(mails.data[0].text);
  const verified = await api(
    'POST',
    '/api/users/verifyUser',
    { userId: Number(userId), token: decodeURIComponent(token) },
    null,
    xsrf,
  );
  const dashboard = await measure('/dashboard', { token: reg.data.token, user: verified.data.user });

  const kb = (n) => (n / 1024).toFixed(1);
  console.log('\nWarren web bench · first visit, mobile viewport, gzip -9 of every JS and CSS file loaded');
  console.log(
    'page         landed on    files  JS raw / gzip kB    CSS raw / gzip kB   JS+CSS gzip kB  target   result',
  );
  let ok = true;
  for (const [name, m] of [
    ['/sign-in', signIn],
    ['/dashboard', dashboard],
  ]) {
    const total = (m.js.gz + m.css.gz) / 1024;
    const pass = total <= TARGET_KB;
    ok &&= pass;
    console.log(
      `${name.padEnd(12)} ${m.landed.padEnd(12)} ${String(m.files).padStart(5)}  ${`${kb(m.js.raw)} / ${kb(m.js.gz)}`.padEnd(18)} ${`${kb(m.css.raw)} / ${kb(m.css.gz)}`.padEnd(19)} ${total.toFixed(1).padStart(14)}  <=${TARGET_KB}    ${pass ? 'PASS' : 'BELOW'}`,
    );
  }
  const floorKb = (floor.js + floor.css) / 1024;
  console.log(
    `${'stack floor'.padEnd(12)} ${'(bench/floor)'.padEnd(12)} ${''.padStart(5)}  ${`- / ${kb(floor.js)}`.padEnd(18)} ${`- / ${kb(floor.css)}`.padEnd(19)} ${floorKb.toFixed(1).padStart(14)}  the prescribed libraries alone: one form, one input, one button`,
  );
  for (const [name, m] of [
    ['/sign-in', signIn],
    ['/dashboard', dashboard],
  ]) {
    const total = (m.js.gz + m.css.gz) / 1024;
    console.log(
      `  ${name}: ${(total / floorKb).toFixed(2)}x the stack floor; ${(total - floorKb).toFixed(1)} kB of page, shell and features on top of it`,
    );
  }
  process.exitCode = 0;
  if (!ok) console.log('web bench: above the size target');

  if (LH_RUNS > 0) await lighthouseBench({ token: reg.data.token, user: verified.data.user, email });
} finally {
  await browser.close();
  server.kill('SIGTERM');
  floorServer.close();
  fs.rmSync(floor.dir, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
}

/**
 * A signed-in browser as the app leaves it at sign-in (lib/session.ts signedIn): the token and user
 * in local storage and the isUserExist cookie, which tells the server to send the logged-in page's
 * hints (its code and styles to preload) with the HTML. Runs in the page.
 */
function seedSession(s) {
  localStorage.setItem('token', s.token);
  localStorage.setItem('user', JSON.stringify(s.user));
  globalThis.document.cookie = 'isUserExist=1; path=/; max-age=86400';
}

/**
 * Lighthouse, mobile (default config), performance only, LH_RUNS runs per page in one Debian chromium.
 * Nothing leaves 127.0.0.1: chromium runs with background networking, component updates and sync off
 * and a resolver that answers NOTFOUND for every host name; Lighthouse's programmatic API has no error
 * reporting and downloads nothing (chrome-launcher starts the installed chromium).
 */
async function lighthouseBench(session) {
  let chrome;
  let pptr;
  const chromePath = process.env.CHROME_PATH || CHROME_PATH;
  try {
    // chrome-launcher's spawn error would be an uncaught 'error' event: check the binary first.
    fs.accessSync(chromePath, fs.constants.X_OK);
    chrome = await chromeLauncher.launch({
      chromePath,
      chromeFlags: [
        '--headless=new',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
      ],
      logLevel: 'silent',
    });
    pptr = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}`, defaultViewport: null });
  } catch (err) {
    console.log(`web bench: Lighthouse not run, chromium did not start: ${err.message}`);
    chrome?.kill();
    return;
  }
  const flags = { onlyCategories: ['performance'], output: 'json', logLevel: 'error' };

  /**
   * One Lighthouse run. signedIn: 'cold' seeds the session with an empty cache (a first visit);
   * 'repeat' opens the page once first and keeps the cache (a returning customer).
   */
  async function run(pathname, signedIn, base) {
    const page = await pptr.newPage();
    try {
      if (signedIn === 'repeat') {
        await page.goto(`${origin}/api/health`);
        await page.evaluate(seedSession, session);
        await page.goto(`${base}${pathname}`, { waitUntil: 'networkidle0' });
        await page.goto(`${origin}/api/health`);
      } else if (signedIn) {
        // Seed the session on the origin from a page that loads none of the app (so its HTTP cache stays
        // cold), then keep it: disableStorageReset also skips Lighthouse's cache clearing, so clear the cache here.
        await page.goto(`${origin}/api/health`);
        await page.evaluate(seedSession, session);
        const cdp = await page.createCDPSession();
        await cdp.send('Network.clearBrowserCache');
        await cdp.detach();
      }
      const result = await lighthouse(
        `${base}${pathname}`,
        { ...flags, disableStorageReset: !!signedIn },
        undefined,
        page,
      );
      const lhr = result?.lhr;
      if (!lhr) throw new Error('Lighthouse returned no result');
      if (lhr.runtimeError) throw new Error(`${lhr.runtimeError.code}: ${lhr.runtimeError.message}`);
      // LH_REPORT_DIR=dir keeps each run's full report (audits: request chains, main-thread work, LCP element).
      if (process.env.LH_REPORT_DIR) {
        fs.mkdirSync(process.env.LH_REPORT_DIR, { recursive: true });
        fs.writeFileSync(
          path.join(process.env.LH_REPORT_DIR, `${pathname.replace(/\W+/g, '_')}-${Date.now()}.json`),
          JSON.stringify(lhr),
        );
      }
      const num = (id) => lhr.audits[id]?.numericValue ?? NaN;
      const requests = lhr.audits['network-requests']?.details?.items ?? [];
      const offOrigin = requests
        .filter((r) => !/^(data|blob):/.test(r.url) && new URL(r.url).origin !== base)
        .map((r) => r.url);
      return {
        landed: new URL(lhr.finalDisplayedUrl).pathname,
        perf: lhr.categories.performance.score === null ? NaN : Math.round(lhr.categories.performance.score * 100),
        lcp: num('largest-contentful-paint'),
        tbt: num('total-blocking-time'),
        fcp: num('first-contentful-paint'),
        cls: num('cumulative-layout-shift'),
        offOrigin,
        warnings: lhr.runWarnings ?? [],
        about: `Lighthouse ${lhr.lighthouseVersion}, ${lhr.configSettings.formFactor} (${lhr.configSettings.screenEmulation.width}x${lhr.configSettings.screenEmulation.height}, ${lhr.configSettings.throttlingMethod} throttling: ${lhr.configSettings.throttling.rttMs} ms RTT, ${(lhr.configSettings.throttling.throughputKbps / 1024).toFixed(1)} Mbit/s, ${lhr.configSettings.throttling.cpuSlowdownMultiplier}x CPU)`,
      };
    } finally {
      await page.close();
    }
  }

  const median = (xs) => {
    const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
    return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
  };
  try {
    const pages = [];
    // The stack floor's page first: the same runs, so the real pages can be read against it.
    const list = [
      ['stack floor', '/', false, floorOrigin],
      ...ENTRY_PAGES.map((p) => [p, p, false, origin]),
      ['/dashboard', '/dashboard', 'cold', origin],
      ['dash repeat', '/dashboard', 'repeat', origin],
    ].filter(([label, name]) => !LH_PAGES || LH_PAGES.has(label) || LH_PAGES.has(name));
    for (const [label, name, signedIn, base] of list) {
      const runs = [];
      for (let i = 0; i < LH_RUNS; i++) {
        // A run Lighthouse itself could not record (NO_NAVSTART: its trace missed the navigation) is tried once more.
        for (let attempt = 1; attempt <= 2; attempt++) {
          try {
            runs.push(await run(name, signedIn, base));
            break;
          } catch (err) {
            console.log(`lighthouse ${label} run ${i + 1}${attempt > 1 ? ' (again)' : ''}: ${err.message}`);
          }
        }
      }
      pages.push([label, name, runs, base]);
    }

    const about = pages.flatMap(([, , runs]) => runs)[0]?.about ?? 'Lighthouse';
    console.log(`\nWarren web bench · ${about}, performance only, median of ${LH_RUNS} runs`);
    console.log(
      'page               landed on          runs  scores        perf  LCP ms  TBT ms  FCP ms    CLS  target             result',
    );
    for (const [label, name, runs, base] of pages) {
      const m = (k) => median(runs.map((r) => r[k]));
      const landed = [...new Set(runs.map((r) => r.landed))].join(',') || '-';
      const perf = m('perf');
      const tbt = m('tbt');
      const repeat = label === 'dash repeat';
      const pass =
        runs.length > 0 &&
        landed === name &&
        (repeat ? m('lcp') <= TARGET_REPEAT_LCP_MS : perf >= TARGET_PERF && tbt <= TARGET_TBT_MS);
      const f = (x, d = 0) => (Number.isNaN(x) ? '-' : x.toFixed(d));
      console.log(
        `${label.padEnd(18)} ${landed.padEnd(18)} ${String(runs.length).padStart(4)}  ${runs
          .map((r) => f(r.perf))
          .join('/')
          .padEnd(
            12,
          )} ${f(perf).padStart(5)} ${f(m('lcp')).padStart(7)} ${f(tbt).padStart(7)} ${f(m('fcp')).padStart(7)} ${f(m('cls'), 3).padStart(6)}  ${(repeat ? `LCP<=${TARGET_REPEAT_LCP_MS}` : `>=${TARGET_PERF}, TBT<=${TARGET_TBT_MS}`).padEnd(17)}  ${pass ? 'PASS' : 'BELOW'}`,
      );
      if (landed !== name) console.log(`  ${label}: Lighthouse ended on ${landed}, not ${name}`);
      const off = [...new Set(runs.flatMap((r) => r.offOrigin))];
      if (off.length) console.log(`  ${label}: requests off ${base}: ${off.join(' ')}`);
      const warnings = [...new Set(runs.flatMap((r) => r.warnings.map(String)))];
      for (const w of warnings) console.log(`  ${label}: Lighthouse warning: ${w}`);
    }
    if (!LH_PAGES || LH_PAGES.has('sign-in to dashboard')) await signInBench(pptr, session);
  } catch (err) {
    console.log(`web bench: Lighthouse failed: ${err.stack ?? err}`);
  } finally {
    await pptr.disconnect();
    chrome.kill();
  }
}

/**
 * Sign-in to dashboard as a returning customer: the sign-in page is open (its files and the
 * dashboard's cached from an earlier visit), the form is filled; from the press of "Sign in" to
 * the dashboard showing the account's email. LH_RUNS times each: as is (127.0.0.1), and with
 * Lighthouse's mobile figures applied by DevTools (150 ms round trip, 1.6 Mbit/s down, 750 kbit/s
 * up, 4x CPU slowdown). Medians.
 */
async function signInBench(pptr, session) {
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
  const results = {};
  for (const throttled of [false, true]) {
    const times = [];
    for (let i = 0; i < Math.max(LH_RUNS, 1); i++) {
      const page = await pptr.newPage();
      try {
        // Warm the cache with a signed-in dashboard visit, then sign out as the app does (local storage and isUserExist).
        await page.goto(`${origin}/api/health`);
        await page.evaluate((s) => {
          localStorage.setItem('token', s.token);
          localStorage.setItem('user', JSON.stringify(s.user));
        }, session);
        await page.goto(`${origin}/dashboard`, { waitUntil: 'networkidle0' });
        await page.waitForSelector('[data-testid="dashboard-email"]');
        await page.evaluate(() => {
          localStorage.clear();
          globalThis.document.cookie = 'isUserExist=; max-age=0; path=/';
        });
        const cdp = await page.createCDPSession();
        if (throttled) {
          await cdp.send('Network.enable');
          await cdp.send('Network.emulateNetworkConditions', {
            offline: false,
            latency: 150,
            downloadThroughput: (1.6 * 1024 * 1024) / 8,
            uploadThroughput: (750 * 1024) / 8,
          });
          await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
        }
        await page.goto(`${origin}/sign-in`, { waitUntil: 'networkidle0' });
        await page.waitForSelector('fieldset:not(:disabled) input[type="email"]');
        await page.type('input[type="email"]', session.email);
        await page.type('input[type="password"]', PASSWORD);
        const start = Date.now();
        await page.click('button[type="submit"]');
        await page.waitForSelector('[data-testid="dashboard-email"]', { timeout: 30_000 });
        times.push(Date.now() - start);
        await cdp.detach();
      } catch (err) {
        console.log(`sign-in to dashboard${throttled ? ' (throttled)' : ''} run ${i + 1}: ${err.message}`);
      } finally {
        await page.close();
      }
    }
    results[throttled ? 'throttled' : 'plain'] = times;
  }
  console.log(
    `\nWarren web bench · sign-in to dashboard, assets cached, press of "Sign in" to the dashboard's email shown, median of ${Math.max(LH_RUNS, 1)}`,
  );
  for (const [label, times] of [
    ['127.0.0.1 as is', results.plain],
    ['150 ms RTT, 1.6 Mbit/s, 4x CPU', results.throttled],
  ]) {
    const m = times.length ? median(times) : NaN;
    console.log(
      `${label.padEnd(32)} ${times
        .map((t) => String(t))
        .join('/')
        .padEnd(18)} ${String(m).padStart(6)} ms  <=${TARGET_SIGN_IN_MS}  ${m <= TARGET_SIGN_IN_MS ? 'PASS' : 'BELOW'}`,
    );
  }
}
