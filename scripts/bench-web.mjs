#!/usr/bin/env node
// Web bench: initial JS + CSS (gzip) that a first visit to /sign-in and to /dashboard loads,
// measured in Debian's chromium against the real server. Target: at most 170 kB gzip each.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium } from '@playwright/test';

const root = path.resolve(import.meta.dirname, '..');
const TARGET_KB = 170;
const port = 8390 + Math.floor(Math.random() * 100);
const origin = `http://127.0.0.1:${port}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-webbench-'));

if (!fs.existsSync(path.join(root, 'apps/web/dist/index.html'))) {
  console.log('web bench: building the web app first');
  await new Promise((resolve, reject) =>
    spawn('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' }).on('exit', (c) => (c === 0 ? resolve() : reject(new Error('build failed')))),
  );
}

const server = spawn(process.execPath, ['--import', 'tsx', 'apps/api/src/server.ts'], {
  cwd: root,
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: 'info', JOBS: 'false' },
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

async function api(method, url, body, token, xsrf) {
  const res = await fetch(`${origin}${url}`, {
    method,
    headers: { 'content-type': 'application/json', cookie: `XSRF-TOKEN=${xsrf}`, 'x-xsrf-token': decodeURIComponent(xsrf), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return res.json();
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

/** Loads a page in a fresh context and sums its JS and CSS: raw bytes and gzip bytes. */
async function measure(pathname, session) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  if (session) await context.addInitScript((s) => {
    localStorage.setItem('token', s.token);
    localStorage.setItem('user', JSON.stringify(s.user));
  }, session);
  const page = await context.newPage();
  const bodies = [];
  page.on('response', (res) => {
    const type = res.request().resourceType();
    if (type === 'script' || type === 'stylesheet') bodies.push(res.body().then((b) => ({ url: res.url(), type, b })).catch(() => null));
  });
  await page.goto(`${origin}${pathname}`, { waitUntil: 'networkidle' });
  const landed = new URL(page.url()).pathname;
  const files = (await Promise.all(bodies)).filter(Boolean);
  await context.close();
  const sum = (type) => files.filter((f) => f.type === type).reduce((a, f) => ({ raw: a.raw + f.b.length, gz: a.gz + zlib.gzipSync(f.b, { level: 9 }).length }), { raw: 0, gz: 0 });
  return { landed, js: sum('script'), css: sum('stylesheet'), files: files.length };
}

try {
  const signIn = await measure('/sign-in');
  // A verified user for the dashboard.
  const brand = await fetch(`${origin}/api/brand`);
  const xsrf = /XSRF-TOKEN=([^;]+)/.exec(brand.headers.get('set-cookie') ?? '')[1];
  const email = `bench.${Date.now()}@example.com`;
  const reg = await api('POST', '/api/users/register', { email, password: 'correct horse battery', password_confirmation: 'correct horse battery' }, null, xsrf);
  const mails = await (await fetch(`${origin}/api/dev/mail?to=${encodeURIComponent(email)}`)).json();
  const [, userId, token] = /userId=(\d+)&token=([^\s&]+)/.exec(mails.data[0].text);
  const verified = await api('POST', '/api/users/verifyUser', { userId: Number(userId), token: decodeURIComponent(token) }, null, xsrf);
  const dashboard = await measure('/dashboard', { token: reg.data.token, user: verified.data.user });

  const kb = (n) => (n / 1024).toFixed(1);
  console.log('\nWarren web bench · first visit, mobile viewport, gzip -9 of every JS and CSS file loaded');
  console.log('page         landed on    files  JS raw / gzip kB    CSS raw / gzip kB   JS+CSS gzip kB  target   result');
  let ok = true;
  for (const [name, m] of [['/sign-in', signIn], ['/dashboard', dashboard]]) {
    const total = (m.js.gz + m.css.gz) / 1024;
    const pass = total <= TARGET_KB;
    ok &&= pass;
    console.log(`${name.padEnd(12)} ${m.landed.padEnd(12)} ${String(m.files).padStart(5)}  ${`${kb(m.js.raw)} / ${kb(m.js.gz)}`.padEnd(18)} ${`${kb(m.css.raw)} / ${kb(m.css.gz)}`.padEnd(19)} ${total.toFixed(1).padStart(14)}  <=${TARGET_KB}    ${pass ? 'PASS' : 'BELOW'}`);
  }
  console.log('Lighthouse is not run here: the npm `lighthouse` package is not part of this project yet.');
  process.exitCode = 0;
  if (!ok) console.log('web bench: above the size target');
} finally {
  await browser.close();
  server.kill('SIGTERM');
  fs.rmSync(dataDir, { recursive: true, force: true });
}
