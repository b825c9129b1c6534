import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHost } from '../src/brands/origins.js';
import { linksOf } from '../src/mail/link-guard.js';
import { PASSWORD, TestClient, createTestApp, registerUser, uniqueEmail, type TestApp } from './helpers.js';
import { fillParams, openApiOperations } from './route-suites.js';

/**
 * Issue 20, finding 1: links the server writes (mails, referral links, payment return and callback
 * URLs, redirects) follow the brand registry and the configuration, never the request's Host.
 * Every route of the app (its own route list: a new endpoint is covered without edits) gets the
 * hostile Host values below; no answer (body, Location, Link, CSP or any other header) and no mail
 * in the outbox may name the attacker's host, and the mail guard (mail/link-guard.ts) must not have
 * had to stop one either. Then the flows that mail, with hostile Hosts: every link of every mail
 * points at the brand's origin.
 */

/** Malformed: refused with 400 at the door (plugins/context.ts). */
const MALFORMED = [
  'localhost:18441@evil.example',
  'localhost:@evil.example',
  'localhost:80#@evil.example',
  '[::1]@evil.example',
  'localhost:18441/evil',
  'localhost\\@evil.example',
  'localhost evil.example',
  'localhost,evil.example',
  'localhost:',
  'localhost:0',
  'localhost:65536',
  'localhost?.evil.example',
];
/** Well-formed but not registered, or forwarded headers: served, with the brand's own origin in links. */
const FOREIGN: { host: string; headers?: Record<string, string> }[] = [
  { host: 'evil.example' },
  { host: 'evil.example:18441' },
  { host: 'localhost.evil.example' },
  {
    host: 'localhost',
    headers: {
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'https://evil.example/#',
      forwarded: 'host=evil.example;proto=https',
    },
  },
];
const EVIL = /evil/i;

let t: TestApp;
let outbox: string;
const outboxMails = () =>
  fs.existsSync(outbox)
    ? fs
        .readdirSync(outbox)
        .filter((f) => f.endsWith('.json'))
        .map(
          (f) =>
            JSON.parse(fs.readFileSync(path.join(outbox, f), 'utf8')) as {
              to: string;
              subject: string;
              text: string;
              html: string;
              headers?: Record<string, string>;
            },
        )
    : [];
const refusedMails = async () =>
  (await t.app.services.metrics.mailsRefused.get()).values.reduce((n, v) => n + v.value, 0);

beforeAll(async () => {
  // TRUST_PROXY on: forwarded headers would be believed if anything read them for links.
  t = await createTestApp({
    JOBS: 'false',
    TRUST_PROXY: 'true',
    LIMIT_REGISTER_PER_IP: '100000',
    LIMIT_RESET_PER_IP: '100000',
    LIMIT_LOGIN_PER_IP: '100000',
  });
  outbox = path.join(t.dataDir, 'outbox');
});
afterAll(async () => {
  await t?.close();
});

function assertNoEvil(res: LightMyRequestResponse, what: string) {
  expect(res.statusCode, `${what}: ${res.body.slice(0, 200)}`).toBeLessThan(500);
  for (const [name, value] of Object.entries(res.headers))
    expect(EVIL.test(String(value)), `${what}: header ${name}: ${String(value)}`).toBe(false);
  expect(EVIL.test(res.body), `${what}: body ${res.body.slice(0, 300)}`).toBe(false);
}

describe('parsing the Host header', () => {
  it('takes host names, IPv6 literals and ports 1-65535, and nothing else', () => {
    expect(parseHost('LocalHost:8080')).toEqual({ hostname: 'localhost', port: 8080 });
    expect(parseHost('[::1]:443')).toEqual({ hostname: '[::1]', port: 443 });
    expect(parseHost('proxy.localhost')).toEqual({ hostname: 'proxy.localhost' });
    expect(parseHost('127.0.0.1:1')).toEqual({ hostname: '127.0.0.1', port: 1 });
    for (const bad of [
      ...MALFORMED,
      '',
      ' ',
      '.localhost',
      'local..host',
      '[::1',
      '[zz::1]',
      '[::1]:',
      'localhost:8080:80',
      'localhost%2f',
      'a'.repeat(300),
      'localhost\u0000',
      'localhost:+80',
      'localhost:0x50',
    ])
      expect(parseHost(bad), JSON.stringify(bad)).toBeNull();
  });
});

describe('hostile Hosts against every route', () => {
  it('no answer, header or mail of any route names the forged host', { timeout: 600_000 }, async () => {
    await t.app.ready();
    const bodies = new Map(openApiOperations(t.app).map((op) => [`${op.method} ${op.url}`, op.bodySchema]));
    const seen = new Set<string>();
    const routes = t.app.routeList.filter(
      (r) => r.method !== 'HEAD' && !seen.has(`${r.method} ${r.url}`) && !!seen.add(`${r.method} ${r.url}`),
    );
    expect(routes.length).toBeGreaterThan(50);
    for (const route of routes) {
      // A member of its own per route (a route may sign out or delete the account), with a plausible body:
      // the reset, resend and sign-up calls must get as far as mailing.
      const c = new TestClient(t.app);
      const { user } = await registerUser(c);
      const body =
        route.method === 'GET'
          ? undefined
          : JSON.stringify(plausible(bodies.get(`${route.method} ${route.url}`), user.email));
      const send = (host: string, extra: Record<string, string> = {}) =>
        t.app.inject({
          method: route.method as InjectOptions['method'],
          url: fillParams(route.url),
          headers: {
            host,
            authorization: `Bearer ${c.token}`,
            'x-xsrf-token': c.xsrf!,
            ...(body ? { 'content-type': 'application/json' } : {}),
            ...extra,
          },
          cookies: c.cookies,
          ...(body ? { payload: body } : {}),
        });
      for (const host of MALFORMED) {
        const res = await send(host);
        assertNoEvil(res, `${route.method} ${route.url} Host ${JSON.stringify(host)}`);
        expect(res.statusCode, `${route.method} ${route.url} Host ${JSON.stringify(host)}`).toBe(400);
      }
      for (const { host, headers } of FOREIGN)
        assertNoEvil(
          await send(host, headers),
          `${route.method} ${route.url} Host ${host} ${JSON.stringify(headers ?? {})}`,
        );
    }
    await t.app.settle();
    const mails = outboxMails();
    expect(mails.length).toBeGreaterThan(0);
    for (const m of mails) expect(EVIL.test(JSON.stringify(m)), `${m.subject}: ${m.text}`).toBe(false);
    expect(await refusedMails()).toBe(0);
  });
});

/** A body the route may accept: every property of its schema with a value of its type (emails: the member's). */
function plausible(schema: { properties?: Record<string, unknown> } | undefined, email: string): unknown {
  type S = {
    type?: string | string[];
    format?: string;
    enum?: unknown[];
    properties?: Record<string, S>;
    anyOf?: S[];
    minimum?: number;
    minLength?: number;
  };
  const value = (name: string, s: S): unknown => {
    if (s.anyOf?.length) return value(name, s.anyOf[0]!);
    if (s.enum?.length) return s.enum[0];
    const type = [s.type].flat()[0];
    if (type === 'object')
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, value(k, v)]));
    if (type === 'integer' || type === 'number') return s.minimum ?? 1;
    if (type === 'boolean') return true;
    if (type === 'array') return [];
    if (/email/i.test(name) || s.format === 'email') return email;
    if (/password/i.test(name)) return PASSWORD;
    if (/url|path/i.test(name)) return '/';
    return 'x'.repeat(Math.max(1, s.minLength ?? 1));
  };
  return schema ? value('', { type: 'object', ...(schema as S) }) : {};
}

/** Every link of every mail sent to `email`: each must point at `origin`. */
async function linksTo(email: string) {
  await t.app.settle();
  const mails = outboxMails().filter((m) => m.to === email);
  return { mails, links: mails.flatMap((m) => linksOf(m)) };
}

describe('the flows that mail, with hostile Hosts', () => {
  for (const { host, headers } of FOREIGN) {
    it(`Host ${host} ${headers ? 'with forwarded headers' : ''}: sign-up, resend, reset, one-time link, a purchase and its receipt link to the brand's origin`, async () => {
      // A development server without PUBLIC_URL: an unregistered Host gets the first brand's canonical origin
      // (http://localhost:PORT); a registered one (localhost: the forwarded headers are what is hostile) keeps
      // its registered name for the links written while answering (mails sent later use the canonical one).
      const canonical = `http://localhost:${t.config.port}`;
      const origin = host === 'localhost' ? 'http://localhost' : canonical;
      const c = new TestClient(t.app, { host });
      const hostile = { headers: headers ?? {} };
      const email = uniqueEmail('host');
      const reg = await c.post(
        '/api/users/register',
        { name: 'Host Test', email, password: PASSWORD, password_confirmation: PASSWORD },
        hostile,
      );
      expect(reg.statusCode, reg.body).toBe(201);
      c.token = reg.json().data.token;
      expect((await c.post('/api/users/resendVerification', undefined, hostile)).statusCode).toBe(200);
      expect((await c.post('/api/users/requestResetPassword', { email }, hostile)).statusCode).toBe(200);
      const onetime = await c.get('/api/users/onetimeLinkByPromo', hostile);
      expect(onetime.statusCode, onetime.body).toBe(200);
      expect(new URL(onetime.json().data.url).origin).toBe(origin);
      for (const path of ['/api/affiliate/stats', '/api/rewards']) assertNoEvil(await c.get(path, hostile), path);
      await t.app.db.query(`update users set verified = true, account_status = 'Active' where email = $1`, [email]);
      const pay = await c.post(
        '/api/billing/createPayment',
        { tariffId: 2, currency: 'USD', provider: 'sandbox', returnPath: '/thank-you' },
        hostile,
      );
      expect(pay.statusCode, pay.body).toBe(200);
      assertNoEvil(pay, 'createPayment');
      const redirect = new URL(pay.json().data.redirectUrl as string);
      const page = await t.app.inject({ method: 'GET', url: redirect.pathname, headers: { host, ...headers } });
      assertNoEvil(page, 'sandbox page');
      const done = await t.app.inject({
        method: 'POST',
        url: redirect.pathname,
        headers: { host, ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'outcome=pay',
      });
      assertNoEvil(done, 'sandbox pay');
      const { mails, links } = await linksTo(email);
      expect(mails.map((m) => m.subject).join(' | ')).toMatch(/confirm|verify/i);
      expect(mails.length).toBeGreaterThanOrEqual(4); // verify, its resend, reset, receipt
      expect(links.length).toBeGreaterThanOrEqual(4);
      for (const link of links) expect([origin, canonical], link).toContain(new URL(link).origin);
      expect(await refusedMails()).toBe(0);
    });
  }

  it('the absolute request target (GET http://evil.example/… HTTP/1.1) changes neither the brand nor a link', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as AddressInfo).port;
    const email = uniqueEmail('abs');
    await registerUser(new TestClient(t.app), email);
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const s = net.connect(port, '127.0.0.1', () => s.end(request));
        let out = '';
        s.on('data', (d) => (out += d));
        s.on('end', () => resolve(out));
        s.on('error', reject);
      });
    const body = JSON.stringify({ email });
    for (const target of [
      'http://evil.example/api/users/requestResetPassword',
      'http://localhost:18441@evil.example/api/users/requestResetPassword',
    ]) {
      const res = await raw(
        `POST ${target} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      expect(res).toMatch(/^HTTP\/1\.1 [1-4]\d\d/);
      expect(EVIL.test(res.replace(/^[^\r]*\r\n/, '')), res).toBe(false);
    }
    // Also what app.inject cannot send: an empty Host.
    for (const host of [...MALFORMED.slice(0, 6), '']) {
      const res = await raw(
        `POST /api/users/requestResetPassword HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      expect(res, host).toMatch(/^HTTP\/1\.1 400/);
    }
    const { links } = await linksTo(email);
    for (const link of links) expect(link).not.toMatch(EVIL);
  });
});

describe('in production with PUBLIC_URL', () => {
  it('every link goes to PUBLIC_URL, whatever the Host, also a registered one with another port', async () => {
    const prod = await createTestApp({
      NODE_ENV: 'production',
      APP_SECRET: 'a'.repeat(40),
      ALLOW_NO_CAPTCHA_IN_PRODUCTION: 'true',
      PUBLIC_URL: 'https://vpn.example.com',
      JOBS: 'false',
      SANDBOX_PAYMENTS: 'false',
      LIMIT_RESET_PER_IP: '1000',
      LIMIT_REGISTER_PER_IP: '1000',
    });
    try {
      const dir = path.join(prod.dataDir, 'outbox');
      for (const host of [
        'localhost:18441',
        'localhost',
        '127.0.0.1:6666',
        'evil.example',
        'localhost:18441@evil.example',
        'localhost:80#@evil.example',
        '[::1]@evil.example',
      ]) {
        const c = new TestClient(prod.app, { host: 'localhost' });
        const email = uniqueEmail('prod');
        await registerUser(c, email);
        const res = await prod.app.inject({
          method: 'POST',
          url: '/api/users/requestResetPassword',
          headers: {
            host,
            'x-xsrf-token': c.xsrf!,
            'content-type': 'application/json',
            'x-forwarded-host': 'evil.example',
            'x-forwarded-proto': 'http',
          },
          cookies: c.cookies,
          payload: { email },
        });
        expect(res.statusCode, `${host}: ${res.body}`).toBe(parseHost(host) ? 200 : 400);
        const onetime = await c.request({ method: 'GET', url: '/api/users/onetimeLinkByPromo', headers: { host } });
        if (parseHost(host)) expect(new URL(onetime.json().data.url).origin).toBe('https://vpn.example.com');
        await prod.app.settle();
        const mails = fs
          .readdirSync(dir)
          .map(
            (f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as { to: string; text: string; html: string },
          )
          .filter((m) => m.to === email);
        expect(mails.length).toBeGreaterThanOrEqual(parseHost(host) ? 2 : 1);
        for (const link of mails.flatMap((m) => linksOf(m)))
          expect(new URL(link).origin, `${host}: ${link}`).toBe('https://vpn.example.com');
      }
    } finally {
      await prod.close();
    }
  });
});
