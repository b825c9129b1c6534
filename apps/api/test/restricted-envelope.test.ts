import { generateKeyPairSync } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESTRICTED_PATHS, type RestrictedEnvelopeAnswer } from '@warren/contract';
import { decryptText, encryptText } from '../src/lib/secrets.js';
import { addLocation, addNode } from '../src/modules/nodes/admin.js';
import { NOT_REACHED, NOT_THROUGH_ENVELOPE } from '../src/plugins/restricted-envelope.js';
import { PASSWORD, TestClient, createTestApp, registerUser, uniqueEmail, type TestApp } from './helpers.js';
import { fillParams, openApiOperations, pathSpellings, snapshot } from './route-suites.js';

/**
 * The envelope of a restricted host (README: Restricted hosts; plugins/restricted-envelope.ts):
 * every signed-in call of the web app travels as one encrypted body, and a plain call with a
 * bearer header is refused there. The first test walks every route of the OpenAPI document, so a
 * route added later is covered without an edit here. PGlite; PostgreSQL with TEST_DATABASE_URL.
 */
const PROXY = 'proxy.localhost';
const KEY = 'q0Hn7QmZ0nS2b1uV7H3cJm0a9w8E5r2T1y4U6i8O0pA='; // config/brands.json, brand warren-proxy
const ENVELOPE = `/api/${RESTRICTED_PATHS.envelope}`;
const TEXT = { 'content-type': 'text/plain' };
const ENCRYPTED_ONLY = 'This host accepts only the encrypted calls.';
const sealed = (payload: unknown) => encryptText(KEY, JSON.stringify(payload));

interface Call {
  method: string;
  path: string;
  query?: string;
  body?: unknown;
  headers?: Record<string, string>;
}
interface Opened {
  res: LightMyRequestResponse;
  answer: RestrictedEnvelopeAnswer;
  status: number;
  json: () => Record<string, unknown> & {
    data: Record<string, unknown>;
    message?: string;
    errors?: Record<string, string[]>;
  };
}

/** One call through the envelope, as the web app sends it: no bearer header, the token inside. */
async function envelope(c: TestClient, token: string, call: Call, extra: Record<string, string> = {}): Promise<Opened> {
  const res = await c.post(ENVELOPE, sealed({ token, ...call }), { headers: { ...TEXT, ...extra }, auth: false });
  if (res.statusCode !== 200) throw new Error(`envelope ${call.method} ${call.path}: ${res.statusCode} ${res.body}`);
  expect(res.headers.authorization).toBeUndefined();
  expect(res.headers['cache-control']).toBe('no-store');
  const answer = JSON.parse(decryptText(KEY, res.body)!) as RestrictedEnvelopeAnswer;
  return { res, answer, status: answer.status, json: () => JSON.parse(answer.body!) };
}

let t: TestApp;
/** Every log line of this file's app, and every session and email it made: none may meet (the last test). */
const logLines: string[] = [];
const secretsSeen = new Set<string>();
beforeAll(async () => {
  t = await createTestApp(
    {
      JOBS: 'false',
      TRUST_PROXY: 'true',
      LOG_LEVEL: 'info',
      LIMIT_LOGIN_PER_IP: '100000',
      LIMIT_REGISTER_PER_IP: '100000',
      LIMIT_RESET_PER_IP: '100000',
    },
    { logStream: { write: (line: string) => void logLines.push(line) } },
  );
  await t.app.ready();
  await addLocation(t.app.db, {
    slug: 'zz-envelope',
    countryCode: 'ZZ',
    country: { en: 'Freeland', ru: 'Фриленд', zh: '自由国' },
    city: { en: 'Libre', ru: 'Либре', zh: '自由城' },
    latitude: 0,
    longitude: 0,
    premium: false,
  });
  await addNode(t.app.db, { location: 'zz-envelope', name: 'zz-envelope-1', endpointHost: '198.51.100.21' });
});
afterAll(async () => {
  await t?.close();
});

const wgKey = () =>
  generateKeyPairSync('x25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');

async function customer(host = PROXY, email = uniqueEmail('envelope')) {
  const c = new TestClient(t.app, { host });
  const { token, user } = await registerUser(c, email);
  secretsSeen.add(token).add(email);
  return { c, token, user, email };
}

/** Pays for a plan through the sandbox (the provider's page posts its outcome), as the customer's browser would. */
async function pay(c: TestClient, token: string) {
  const created = await envelope(c, token, {
    method: 'POST',
    path: '/api/billing/createPayment',
    body: { tariffId: 2, currency: 'USD', provider: 'sandbox', returnPath: '/thank-you' },
  });
  expect(created.status, created.answer.body).toBe(200);
  const { redirectUrl, paymentId } = created.json().data as { redirectUrl: string; paymentId: string };
  await t.app.inject({
    method: 'POST',
    url: new URL(redirectUrl).pathname,
    headers: { host: PROXY, 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'outcome=pay',
  });
  await t.app.settle();
  return paymentId;
}

/** Inputs that take a route past validation to its session and service (other routes get {} and no query). */
const SAMPLE: Record<string, { query?: string; body?: () => unknown }> = {
  'POST /api/setup/wg/devices/add': { body: () => ({ name: 'Laptop', publicKey: wgKey() }) },
  'POST /api/setup/wg/devices/rename': { body: () => ({ id: 1, name: 'Phone' }) },
  'POST /api/setup/wg/devices/revoke': { body: () => ({ id: 1 }) },
  'POST /api/setup/wg/devices/rotate': { body: () => ({ id: 1, previousKey: wgKey(), publicKey: wgKey() }) },
  'POST /api/setup/wg/devices/lifetime': { body: () => ({ id: 1, days: 7 }) },
  'POST /api/setup/features/state': { body: () => ({ id: 1, state: true }) },
  'POST /api/billing/createPayment': { body: () => ({ tariffId: 3, currency: 'USD', provider: 'sandbox' }) },
  'POST /api/billing/subscription/autoRenew': { body: () => ({ enabled: false }) },
  'POST /api/profile/update': { body: () => ({ firstName: 'Ada' }) },
  'POST /api/profile/sessions/revoke': { body: () => ({ id: 1 }) },
  'POST /api/profile/email/unsubscribe': { body: () => ({ news: false }) },
  'POST /api/users/session/set': { body: () => ({ sessionID: 'visit-1' }) },
  'POST /api/users/annihilation': { body: () => ({ password: PASSWORD }) },
  'GET /api/users/onetimeLinkByPromo': { query: 'promocode=SPRING' },
  'GET /api/setup/openvpn/config': { query: 'location=zz-envelope&protocol=udp' },
  'GET /api/setup/wg/get': { query: 'langCode=en' },
  'GET /api/setup/services/get': { query: 'langCode=en' },
};

describe('every route on a restricted host', () => {
  it('a plain call with a bearer header is refused (403) and changes nothing; through the envelope it answers as the same call does on the main host', async () => {
    const ops = openApiOperations(t.app).filter(
      (op) =>
        op.url.startsWith('/api/') &&
        !op.url.startsWith(ENVELOPE) &&
        ![...NOT_THROUGH_ENVELOPE.keys()].some((p) => op.url.startsWith(p) || op.url === p.replace(/\/$/, '')),
    );
    const restricted = new Set(Object.values(RESTRICTED_PATHS).map((p) => `/api/${p}`));
    const customerRoutes = ops.filter((op) => !restricted.has(op.url));
    const signedIn: string[] = [];
    const differ: string[] = [];
    const { c: plain, token: plainToken } = await customer();
    for (const op of customerRoutes) {
      const key = `${op.method} ${op.url}`;
      const sample = SAMPLE[key] ?? {};
      const path = fillParams(op.url, 'x1');
      const url = sample.query ? `${path}?${sample.query}` : path;
      const body = op.method === 'GET' ? undefined : (sample.body?.() ?? {});

      // The plain call with a bearer, on the restricted host, in every spelling: 403 or no route, and nothing written.
      const before = await snapshot(t.app);
      plain.token = plainToken;
      for (const u of [url, ...pathSpellings(path)]) {
        const res = await plain.request({
          method: op.method as 'GET',
          url: u,
          ...(body === undefined ? {} : { payload: body as object }),
        });
        expect(res.statusCode, `${op.method} ${u}: ${res.body.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
        expect(res.statusCode, `${op.method} ${u}`).toBeLessThan(500);
        if (u === url) expect(res.json(), key).toEqual({ message: ENCRYPTED_ONLY });
      }
      expect(await snapshot(t.app), `${key} changed something while refused`).toEqual(before);

      // The same call, once directly on the main host and once through the envelope, each by a new customer.
      const main = await customer('localhost');
      const direct = await main.c.request({
        method: op.method as 'GET',
        url,
        ...(body === undefined ? {} : { payload: body as object }),
      });
      const anonymous = await new TestClient(t.app).request({
        method: op.method as 'GET',
        url,
        auth: false,
        ...(body === undefined ? {} : { payload: sample.body?.() ?? {} }),
      });
      if (anonymous.statusCode === 401 && direct.statusCode !== 401) signedIn.push(key);
      const proxy = await customer();
      const viaEnvelope = await envelope(proxy.c, proxy.token, {
        method: op.method,
        path,
        ...(sample.query ? { query: sample.query } : {}),
        ...(body === undefined ? {} : { body: sample.body?.() ?? {} }),
      });
      if (viaEnvelope.status !== direct.statusCode)
        differ.push(
          `${key}: main ${direct.statusCode}, envelope ${viaEnvelope.status} ${viaEnvelope.answer.body?.slice(0, 120)}`,
        );
      else if (direct.statusCode === 200 && /json/.test(String(direct.headers['content-type']))) {
        expect(Object.keys(viaEnvelope.json()).sort(), key).toEqual(Object.keys(direct.json()).sort());
      }
      // Nothing of the session in clear, whatever the call answered.
      expect(viaEnvelope.res.body.includes(proxy.token), key).toBe(false);
      expect(viaEnvelope.res.body.includes(proxy.email), key).toBe(false);
    }
    expect(differ, 'answers through the envelope that differ from the main host').toEqual([]);
    // The walk reached the signed-in calls behind their sessions (so an empty walk cannot pass).
    expect(signedIn).toEqual(
      expect.arrayContaining([
        'GET /api/setup/wg/get',
        'POST /api/setup/wg/devices/add',
        'POST /api/setup/wg/devices/rename',
        'POST /api/setup/wg/devices/revoke',
        'GET /api/setup/features/get',
        'POST /api/setup/features/state',
        'GET /api/rewards',
        'GET /api/affiliate/stats',
        'GET /api/billing/payments',
        'GET /api/billing/subscription',
        'POST /api/billing/subscription/autoRenew',
        'POST /api/users/logout',
        'GET /api/profile/sessions',
        'POST /api/profile/sessions/revokeOthers',
        'GET /api/users/info/get',
        'GET /api/profile',
        'GET /api/setup/services/get',
        'GET /api/setup/openvpn/config',
        'POST /api/billing/createPayment',
        'POST /api/users/annihilation',
      ]),
    );
  });
});

describe('the dashboard through the envelope', () => {
  it('WireGuard, the ad blocker, payments, the subscription and a receipt: encrypted both ways, nothing in clear', async () => {
    const { c, token, email } = await customer();
    // A paid plan (through the envelope too): devices need an active account.
    const paymentId = await pay(c, token);
    const publicKey = wgKey();
    const added = await envelope(c, token, {
      method: 'POST',
      path: '/api/setup/wg/devices/add',
      body: { name: 'Laptop of Ada', publicKey },
    });
    expect(added.status, added.answer.body).toBe(201);
    const device = added.json().data.device as { id: number; name: string };
    expect(device.name).toBe('Laptop of Ada');
    const overview = await envelope(c, token, { method: 'GET', path: '/api/setup/wg/get', query: 'langCode=en' });
    expect(overview.status, overview.answer.body).toBe(200);
    expect(JSON.stringify(overview.json().data)).toContain(publicKey);
    const features = await envelope(c, token, { method: 'GET', path: '/api/setup/features/get' });
    expect(features.status).toBe(200);
    const adBlocker = (
      features.json().data as { items: { id: number; name: string; isEnabled: boolean }[] }
    ).items.find((f) => /ad/i.test(f.name))!;
    const toggled = await envelope(c, token, {
      method: 'POST',
      path: '/api/setup/features/state',
      body: { id: adBlocker.id, state: !adBlocker.isEnabled },
    });
    expect(toggled.status, toggled.answer.body).toBe(200);
    expect(toggled.json().data).toEqual({ id: adBlocker.id, isEnabled: !adBlocker.isEnabled });
    const payments = await envelope(c, token, { method: 'GET', path: '/api/billing/payments' });
    expect(payments.status, payments.answer.body).toBe(200);
    const items = (payments.json().data as { items: { id: string; amountMinor: number }[] }).items;
    expect(items.map((i) => i.id)).toContain(paymentId);
    const subscription = await envelope(c, token, { method: 'GET', path: '/api/billing/subscription' });
    expect(subscription.status, subscription.answer.body).toBe(200);
    // A binary answer (the receipt's PDF) comes as base64 inside the sealed answer, with its headers.
    const receipt = await envelope(c, token, { method: 'GET', path: `/api/billing/payments/${paymentId}/receipt` });
    expect(receipt.status, receipt.answer.body).toBe(200);
    expect(receipt.answer.headers['content-type']).toMatch(/^application\/pdf/);
    expect(receipt.answer.headers['content-disposition']).toMatch(/^attachment; filename="receipt-/);
    expect(Buffer.from(receipt.answer.bodyBase64!, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
    for (const r of [added, overview, features, toggled, payments, subscription, receipt]) {
      const clear = `${JSON.stringify(r.res.headers)}\n${r.res.body}`;
      for (const secret of [token, email, publicKey, 'Laptop of Ada', paymentId, 'amountMinor', 'receipt-', 'sandbox'])
        expect(clear.includes(secret), `${secret} in clear`).toBe(false);
    }
    // A captured envelope replayed is its plain call replayed: the revoked device is gone (404 inside).
    const revoke = sealed({ token, method: 'POST', path: '/api/setup/wg/devices/revoke', body: { id: device.id } });
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++)
      statuses.push(
        (
          JSON.parse(
            decryptText(KEY, (await c.post(ENVELOPE, revoke, { headers: TEXT, auth: false })).body)!,
          ) as RestrictedEnvelopeAnswer
        ).status,
      );
    expect(statuses).toEqual([200, 404]);
    // Sign-out through the envelope ends the session: the same envelope again (a replay) is a 401 inside.
    const logout = sealed({ token, method: 'POST', path: '/api/users/logout', body: {} });
    const out = await c.post(ENVELOPE, logout, { headers: TEXT, auth: false });
    expect(out.statusCode).toBe(200);
    expect((JSON.parse(decryptText(KEY, out.body)!) as RestrictedEnvelopeAnswer).status).toBe(200);
    const again = await c.post(ENVELOPE, logout, { headers: TEXT, auth: false });
    expect((JSON.parse(decryptText(KEY, again.body)!) as RestrictedEnvelopeAnswer).status).toBe(401);
  });

  it('a rotated session comes back inside the sealed answer, never in a clear header', async () => {
    const { c, token } = await customer();
    await t.app.db.query(`update auth_tokens set created_at = created_at - interval '3 days' where rotated_at is null`);
    const res = await envelope(c, token, { method: 'GET', path: '/api/rewards' });
    expect(res.status).toBe(200);
    expect(res.answer.rotatedToken).toMatch(/^[\w-]{20,}$/);
    expect(res.answer.rotatedToken).not.toBe(token);
    expect(res.res.body.includes(res.answer.rotatedToken!)).toBe(false);
    expect((await envelope(c, res.answer.rotatedToken!, { method: 'GET', path: '/api/rewards' })).status).toBe(200);
  });

  it("keeps the client's own address (behind TRUST_PROXY): the call sees it, not the loopback", async () => {
    const { c, token } = await customer();
    // 81.2.69.160 is in the embedded country table (GB); the loopback gets the default country.
    const direct = await t.app.inject({
      method: 'GET',
      url: '/api/ip/info',
      headers: { host: 'localhost', 'x-forwarded-for': '81.2.69.160' },
    });
    const local = await t.app.inject({ method: 'GET', url: '/api/ip/info', headers: { host: 'localhost' } });
    expect(direct.json().data.code).not.toBe(local.json().data.code);
    const res = await envelope(c, token, { method: 'GET', path: '/api/ip/info' }, { 'x-forwarded-for': '81.2.69.160' });
    expect(res.json().data).toEqual(direct.json().data);
  });

  it('the idempotency key travels as a header of the call: the same key is the same payment', async () => {
    const { c, token } = await customer();
    const call = {
      method: 'POST',
      path: '/api/billing/createPayment',
      body: { tariffId: 3, currency: 'USD', provider: 'sandbox' },
      headers: { 'idempotency-key': 'envelope-key-0001' },
    };
    const [a, b] = await Promise.all([envelope(c, token, call), envelope(c, token, call)]);
    expect(a.status, a.answer.body).toBe(200);
    expect(b.json().data.paymentId).toBe(a.json().data.paymentId);
  });
});

describe('hostile envelopes', () => {
  it('inner paths in other spellings, other areas, the envelope itself and restricted calls: refused with a 4xx, nothing run', async () => {
    const { c, token } = await customer();
    const before = await snapshot(t.app);
    const badPaths = [
      '/%61pi/profile',
      '/api/%70rofile',
      '/api/../api/profile',
      '/api/./profile',
      '/api/x/../profile',
      '/api//profile',
      '/api/profile/',
      '/API/profile',
      '/Api/profile',
      'api/profile',
      '/api/profile?x=1',
      '/api/profile#x',
      '/api/profile;x=1',
      '\\api\\profile',
      '/api\\profile',
      'http://evil.example/api/profile',
      '//evil.example/api/profile',
      '/api/profile%00',
      '/api/pro file',
      '/dashboard',
      '/sandbox/checkout/x',
      '/unsubscribe',
      '/metrics',
      '/api',
      '/api/',
      '',
      'x'.repeat(600),
    ];
    for (const path of badPaths) {
      const res = await c.post(ENVELOPE, sealed({ token, method: 'GET', path }), { headers: TEXT, auth: false });
      expect(res.statusCode, `${path}: ${res.body}`).toBe(422);
      expect(Object.keys(res.json().errors)).toEqual(['path']);
    }
    const unreachable: [string, string][] = [
      ['GET', '/api/staff/me'],
      ['GET', '/api/staff/customers'],
      ['POST', '/api/staff/session'],
      ['POST', '/api/staff/customers/1/delete'],
      ['GET', '/api/nodes/desired'],
      ['POST', '/api/nodes/report'],
      ['POST', '/api/billing/webhooks/sandbox'],
      ['GET', '/api/dev/mail'],
      ['GET', '/api/docs/json'],
      ['GET', '/api/sub/abcdef'],
      ['GET', '/api/health'],
      ['POST', ENVELOPE],
      ['POST', '/api/profile/restrictedGet'],
      ['POST', '/api/users/restrictedUserCheck'],
      ['POST', '/api/billing/getRestrictedStripePayment'],
      ['GET', '/api/nope'],
      ['GET', '/api/staff'],
      ['DELETE', '/api/profile'],
      ['PUT', '/api/users/logout'],
      ['GET', '/api/users/logout'],
    ];
    for (const [method, path] of unreachable) {
      const res = await c.post(ENVELOPE, sealed({ token, method, path, ...(method === 'GET' ? {} : { body: {} }) }), {
        headers: TEXT,
        auth: false,
      });
      expect(res.statusCode, `${method} ${path}: ${res.body}`).toBe(404);
      expect(res.json()).toEqual({ message: NOT_REACHED });
    }
    for (const method of ['HEAD', 'OPTIONS', 'TRACE', 'CONNECT', 'get', 'PROPFIND', '']) {
      const res = await c.post(ENVELOPE, sealed({ token, method, path: '/api/rewards' }), {
        headers: TEXT,
        auth: false,
      });
      expect(res.statusCode, method).toBe(422);
      expect(Object.keys(res.json().errors)).toEqual(['method']);
    }
    const shapes: [string, Record<string, unknown>, string][] = [
      ['no token', { method: 'GET', path: '/api/rewards' }, 'token'],
      ['a GET with a body', { token, method: 'GET', path: '/api/rewards', body: {} }, 'body'],
      [
        'another header',
        { token, method: 'GET', path: '/api/rewards', headers: { authorization: 'Bearer x' } },
        'headers',
      ],
      ['a host header', { token, method: 'GET', path: '/api/rewards', headers: { host: 'localhost' } }, 'headers'],
      ['an unknown field', { token, method: 'GET', path: '/api/rewards', url: 'http://localhost/api/staff/me' }, '_'],
      ['a query with a fragment', { token, method: 'GET', path: '/api/rewards', query: 'a=1#x' }, 'query'],
      ['a query with its ?', { token, method: 'GET', path: '/api/rewards', query: '?a=1' }, 'query'],
      ['a path that is not text', { token, method: 'GET', path: ['/api/rewards'] }, 'path'],
    ];
    for (const [what, payload, field] of shapes) {
      const res = await c.post(ENVELOPE, sealed(payload), { headers: TEXT, auth: false });
      expect(res.statusCode, `${what}: ${res.body}`).toBe(422);
      expect(Object.keys(res.json().errors), what).toContain(field);
    }
    // A made-up or spent session: the call answers 401 inside, like a direct call.
    const made = await envelope(c, 'x'.repeat(43), { method: 'GET', path: '/api/rewards' });
    expect(made.status).toBe(401);
    expect(await snapshot(t.app)).toEqual(before);
  });

  it('a bearer header on the envelope itself, a forged inner mark, no XSRF token: refused before anything runs', async () => {
    const { c, token } = await customer();
    const body = sealed({ token, method: 'POST', path: '/api/users/logout', body: {} });
    // The VPN agents' node tokens stay in their header on any host: the node API answers for itself.
    const node = await c.get('/api/nodes/desired', {
      headers: { authorization: `Bearer ${'n'.repeat(43)}` },
      auth: false,
    });
    expect(node.statusCode).toBe(401);
    expect(node.json().message).toBe('Unknown node token.');
    c.token = token;
    const withBearer = await c.post(ENVELOPE, body, { headers: TEXT });
    expect(withBearer.statusCode).toBe(403);
    expect(withBearer.json().message).toBe(ENCRYPTED_ONLY);
    // The header that marks the envelope's own inner calls, guessed by a client: ignored.
    for (const mark of ['1', 'true', 'x'.repeat(43), '']) {
      const res = await c.get('/api/rewards', { headers: { 'x-warren-envelope': mark } });
      expect(res.statusCode, mark).toBe(403);
      expect((await c.get('/api/staff/me', { headers: { 'x-warren-envelope': mark }, auth: false })).statusCode).toBe(
        401,
      );
    }
    const noXsrf = await c.post(ENVELOPE, body, { headers: { ...TEXT, 'x-xsrf-token': '' }, auth: false });
    expect(noXsrf.statusCode).toBe(419);
    // The session lived through all of it.
    expect((await envelope(c, token, { method: 'GET', path: '/api/rewards' })).status).toBe(200);
  });

  it("another customer's devices, sessions and receipts: 404 inside, and theirs unchanged", async () => {
    const a = await customer();
    const b = await customer();
    const receiptOf = await pay(a.c, a.token);
    await pay(b.c, b.token);
    const added = await envelope(a.c, a.token, {
      method: 'POST',
      path: '/api/setup/wg/devices/add',
      body: { name: 'A phone', publicKey: wgKey() },
    });
    const deviceId = (added.json().data.device as { id: number }).id;
    const sessionId = (
      (await envelope(a.c, a.token, { method: 'GET', path: '/api/profile/sessions' })).json().data as {
        items: { id: number }[];
      }
    ).items[0]!.id;
    const before = await snapshot(t.app);
    const tries: Call[] = [
      { method: 'POST', path: '/api/setup/wg/devices/rename', body: { id: deviceId, name: 'Mine now' } },
      { method: 'POST', path: '/api/setup/wg/devices/revoke', body: { id: deviceId } },
      { method: 'GET', path: `/api/billing/payments/${receiptOf}/receipt` },
      { method: 'POST', path: `/api/billing/payments/${receiptOf}/refund`, body: {} },
      { method: 'POST', path: '/api/profile/sessions/revoke', body: { id: sessionId } },
    ];
    for (const call of tries) {
      const res = await envelope(b.c, b.token, call);
      expect(res.status, `${call.path}: ${res.answer.body}`).toBe(404);
    }
    expect(await snapshot(t.app)).toEqual(before);
  });

  it('bodies over the limit: 413, for the call inside and for the envelope itself', async () => {
    const { c, token } = await customer();
    const big = 'x'.repeat(t.config.bodyLimit + 1);
    const inner = await c.post(
      ENVELOPE,
      sealed({ token, method: 'POST', path: '/api/profile/update', body: { firstName: big } }),
      { headers: TEXT, auth: false },
    );
    expect(inner.statusCode).toBe(413);
    const outer = await c.post(ENVELOPE, 'A'.repeat(t.config.bodyLimit * 3), { headers: TEXT, auth: false });
    expect(outer.statusCode).toBe(413);
  });

  it('parallel calls of one session: each answers its own call, none crosses', async () => {
    const { c, token } = await customer();
    await pay(c, token);
    const keys = Array.from({ length: 8 }, () => wgKey());
    const all = await Promise.all([
      ...keys.map((publicKey, i) =>
        envelope(c, token, {
          method: 'POST',
          path: '/api/setup/wg/devices/add',
          body: { name: `Device ${i}`, publicKey },
        }),
      ),
      ...Array.from({ length: 8 }, () => envelope(c, token, { method: 'GET', path: '/api/rewards' })),
    ]);
    all.slice(0, 8).forEach((r, i) => {
      expect(r.status, r.answer.body).toBe(201);
      expect((r.json().data.device as { name: string }).name).toBe(`Device ${i}`);
    });
    for (const r of all.slice(8)) expect(r.status).toBe(200);
    const overview = await envelope(c, token, { method: 'GET', path: '/api/setup/wg/get' });
    for (const k of keys) expect(JSON.stringify(overview.json().data)).toContain(k);
  });

  it('the main host keeps its plain signed-in calls and has no envelope', async () => {
    const { c, token } = await customer('localhost');
    expect((await c.get('/api/rewards')).statusCode).toBe(200);
    const res = await c.post(ENVELOPE, sealed({ token, method: 'GET', path: '/api/rewards' }), {
      headers: TEXT,
      auth: false,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Restricted calls are not available on this host.');
  });
});

describe('the logs', () => {
  it("name the call inside an envelope under the envelope's request id, and never a session token or an email of this file", async () => {
    const { c, token } = await customer();
    const res = await envelope(c, token, { method: 'GET', path: '/api/setup/features/get' });
    const id = res.res.headers['x-request-id'] as string;
    const lines = logLines
      .map((l) => JSON.parse(l) as { reqId?: string; req?: { url?: string }; res?: { statusCode?: number } })
      .filter((l) => l.reqId === id);
    expect(lines.map((l) => l.req?.url).filter(Boolean)).toEqual(
      expect.arrayContaining([ENVELOPE, '/api/setup/features/get']),
    );
    expect(secretsSeen.size).toBeGreaterThan(50);
    const all = logLines.join('\n');
    for (const secret of secretsSeen) expect(all.includes(secret), `a log line holds ${secret}`).toBe(false);
  });
});

describe('in production', () => {
  it('works with the production cookies (__Host- names, Secure): a signed-in read through the envelope, a plain one refused', async () => {
    const prod = await createTestApp({
      JOBS: 'false',
      NODE_ENV: 'production',
      APP_SECRET: 'p'.repeat(40),
      ALLOW_NO_CAPTCHA_IN_PRODUCTION: 'true',
    });
    try {
      const c = new TestClient(prod.app, { host: PROXY });
      const email = uniqueEmail('envelope-prod');
      const { token } = await registerUser(c, email);
      expect(Object.keys(c.cookies)).toContain('__Host-warren-xsrf-key');
      const res = await c.post(ENVELOPE, sealed({ token, method: 'GET', path: '/api/users/info/get' }), {
        headers: TEXT,
        auth: false,
      });
      expect(res.statusCode, res.body).toBe(200);
      const answer = JSON.parse(decryptText(KEY, res.body)!) as RestrictedEnvelopeAnswer;
      expect(answer.status, answer.body).toBe(200);
      expect(answer.body).toContain(email);
      // A change through the envelope passes the production XSRF check with the browser's own cookies.
      const open = async (r: { statusCode: number; body: string }) => {
        expect(r.statusCode, r.body).toBe(200);
        return JSON.parse(decryptText(KEY, r.body)!) as RestrictedEnvelopeAnswer;
      };
      const plain = await c.get('/api/users/info/get');
      expect(plain.statusCode).toBe(403);
      expect(plain.json().message).toBe(ENCRYPTED_ONLY);
      // A change through the envelope passes the production XSRF check with the browser's own cookies: sign-out.
      const out = await open(
        await c.post(ENVELOPE, sealed({ token, method: 'POST', path: '/api/users/logout' }), {
          headers: TEXT,
          auth: false,
        }),
      );
      expect(out.status, out.body).toBeLessThan(300);
      const after = await open(
        await c.post(ENVELOPE, sealed({ token, method: 'GET', path: '/api/users/info/get' }), {
          headers: TEXT,
          auth: false,
        }),
      );
      expect(after.status).toBe(401);
    } finally {
      await prod.close();
    }
  });
});
