import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { XSRF_EXEMPT, xsrfKeyCookie } from '../src/plugins/xsrf.js';
import { PASSWORD, TestClient, createTestApp, registerUser, uniqueEmail, type TestApp } from './helpers.js';
import { fillParams, pathSpellings, snapshot, stateChangingRoutes } from './route-suites.js';

/**
 * XSRF (issue 11, findings 2 and 3) and the matrix that keeps it closed: every state-changing
 * route of the app, found from the app's own route list (so a route added later is in it without
 * anyone editing this file), refuses missing, forged, foreign and stale tokens and every URL
 * spelling with 419 or 404, and nothing in the database changes.
 */

let t: TestApp;
const KEY = xsrfKeyCookie(false);
const DAY_MS = 86_400_000;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.ready();
});
afterAll(async () => {
  await t?.close();
});

/** A client whose XSRF token was issued `agoMs` in the past. */
async function clientIssuedAgo(agoMs: number): Promise<TestClient> {
  const c = new TestClient(t.app);
  const now = Date.now();
  const spy = vi.spyOn(Date, 'now').mockReturnValue(now - agoMs);
  try {
    await c.primeXsrf();
  } finally {
    spy.mockRestore();
  }
  return c;
}

const raw = (opts: InjectOptions) =>
  t.app.inject({ ...opts, headers: { host: 'localhost', ...(opts.headers as Record<string, string>) } });
const formRegister = (email: string) =>
  new URLSearchParams({ name: 'Mallory', email, password: PASSWORD, password_confirmation: PASSWORD }).toString();
const userCount = async () => (await t.app.db.query<{ n: number }>('select count(*)::int as n from users'))[0]!.n;

describe('finding 2: the check follows the route the router resolves, whatever the spelling', () => {
  it('a cross-site form post to /%61pi/users/register creates no account', async () => {
    const before = await userCount();
    for (const url of ['/%61pi/users/register', '/api/%75sers/register', '/%61%70%69/users/register']) {
      const res = await raw({
        method: 'POST',
        url,
        headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
        payload: formRegister(uniqueEmail('csrf')),
      });
      expect([419, 404], `${url}: ${res.statusCode} ${res.body}`).toContain(res.statusCode);
    }
    expect(await userCount()).toBe(before);
  });

  it('JSON routes refuse form-encoded and multipart bodies with 415, even with a valid token', async () => {
    const c = new TestClient(t.app);
    const before = await userCount();
    const form = await c.post('/api/users/register', formRegister(uniqueEmail('form')), {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.statusCode, form.body).toBe(415);
    const multipart = await c.post(
      '/api/users/register',
      `--x\r\nContent-Disposition: form-data; name="email"\r\n\r\na@example.com\r\n--x--`,
      {
        headers: { 'content-type': 'multipart/form-data; boundary=x' },
      },
    );
    expect(multipart.statusCode, multipart.body).toBe(415);
    expect(await userCount()).toBe(before);
  });
});

describe('finding 3: the token is bound to the browser it was issued to', () => {
  it('a token pair fetched by another client is refused', async () => {
    const victim = new TestClient(t.app);
    await victim.primeXsrf();
    const attacker = new TestClient(t.app);
    await attacker.primeXsrf();
    const before = await userCount();
    // The attacker's own valid pair, planted next to the victim's key cookie (or with no key at all).
    const planted = attacker.cookies['XSRF-TOKEN']!;
    for (const cookies of [{ ...victim.cookies, 'XSRF-TOKEN': planted }, { 'XSRF-TOKEN': planted }]) {
      const res = await raw({
        method: 'POST',
        url: '/api/users/register',
        headers: { 'content-type': 'application/json', 'x-xsrf-token': planted },
        cookies,
        payload: { name: 'X', email: uniqueEmail('planted'), password: PASSWORD, password_confirmation: PASSWORD },
      });
      expect(res.statusCode, res.body).toBe(419);
    }
    expect(await userCount()).toBe(before);
  });

  it('the key cookie is httpOnly and SameSite, the token cookie readable; both Secure with the __Host- key in production', async () => {
    const res = await raw({ method: 'GET', url: '/api/brand' });
    const key = res.cookies.find((c) => c.name === KEY) as
      { httpOnly?: boolean; sameSite?: string; path?: string } | undefined;
    const token = res.cookies.find((c) => c.name === 'XSRF-TOKEN') as { httpOnly?: boolean } | undefined;
    expect(key).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(token?.httpOnly).toBeFalsy();
    const prod = await createTestApp({
      NODE_ENV: 'production',
      APP_SECRET: 'p'.repeat(40),
      ALLOW_NO_CAPTCHA_IN_PRODUCTION: 'true',
    });
    try {
      const answer = await prod.app.inject({ method: 'GET', url: '/api/brand', headers: { host: 'localhost' } });
      const cookies = answer.cookies as {
        name: string;
        secure?: boolean;
        httpOnly?: boolean;
        path?: string;
        domain?: string;
      }[];
      expect(cookies.find((c) => c.name === '__Host-warren-xsrf-key')).toMatchObject({
        secure: true,
        httpOnly: true,
        path: '/',
      });
      expect(cookies.find((c) => c.name === '__Host-warren-xsrf-key')?.domain).toBeUndefined();
      expect(cookies.find((c) => c.name === 'XSRF-TOKEN')).toMatchObject({ secure: true });
    } finally {
      await prod.close();
    }
  });

  it('a stale token (older than a day) is refused; the 419 carries a fresh one that works', async () => {
    const c = await clientIssuedAgo(DAY_MS + 60_000);
    const body = { email: uniqueEmail('stale'), password: 'wrong password here' };
    const stale = await c.post('/api/users/login', body);
    expect(stale.statusCode, stale.body).toBe(419);
    // TestClient kept the fresh cookie from the 419, as the browser does; the web app retries once with it.
    const again = await c.post('/api/users/login', body);
    expect(again.statusCode, again.body).toBe(422);
  });

  it('an hour-old token is reissued on the next answer, before it can go stale', async () => {
    const c = await clientIssuedAgo(2 * 3_600_000);
    const old = c.cookies['XSRF-TOKEN'];
    await c.get('/api/brand');
    expect(c.cookies['XSRF-TOKEN']).not.toBe(old);
  });

  it('sign-up, sign-out, sign-in and token rotation never meet a 419', async () => {
    const rot = await createTestApp({ TOKEN_ROTATE_AFTER_MINUTES: '1' });
    try {
      const c = new TestClient(rot.app);
      const { user } = await registerUser(c);
      expect((await c.post('/api/users/logout')).statusCode).toBe(200);
      const login = await c.post('/api/users/login', { email: user.email, password: PASSWORD });
      expect(login.statusCode, login.body).toBe(200);
      c.token = login.json().data.token;
      await rot.app.db.query(`update auth_tokens set created_at = created_at - interval '5 minutes'`);
      const before = c.token;
      const rotated = await c.post('/api/profile/update', { firstName: 'Rotated' });
      expect(rotated.statusCode, rotated.body).toBe(200);
      expect(c.token).not.toBe(before);
      expect((await c.post('/api/profile/update', { firstName: 'After' })).statusCode).toBe(200);
    } finally {
      await rot.close();
    }
  });
});

describe('XSRF matrix: every state-changing route of the app', () => {
  it('exempts exactly the machine endpoints, each with its reason, and they exist', () => {
    const routes = stateChangingRoutes(t.app).map((r) => `${r.method} ${r.url}`);
    expect([...XSRF_EXEMPT.keys()].sort()).toEqual([
      'POST /api/billing/webhooks/:provider',
      'POST /api/nodes/report',
      'POST /sandbox/checkout/:id',
      'POST /unsubscribe',
    ]);
    for (const [route, reason] of XSRF_EXEMPT) {
      expect(routes, `${route} is exempt but not a route of the app`).toContain(route);
      expect(reason.length).toBeGreaterThan(20);
    }
  });

  it('refuses missing, forged, foreign and stale tokens and every spelling of the path with 419 or 404; nothing changes', async () => {
    const victim = new TestClient(t.app);
    const { user } = await registerUser(victim, uniqueEmail('matrix'));
    const other = new TestClient(t.app);
    await registerUser(other, uniqueEmail('matrix-other'));
    const stale = await clientIssuedAgo(DAY_MS + 60_000);
    // A token minted for the victim's previous key (the key cookie was replaced since).
    const previous = victim.cookies['XSRF-TOKEN']!;
    delete victim.cookies[KEY];
    delete victim.cookies['XSRF-TOKEN'];
    await victim.primeXsrf();
    expect(victim.cookies['XSRF-TOKEN']).not.toBe(previous);
    const good = victim.cookies['XSRF-TOKEN']!;
    const tampered = good.slice(0, -1) + (good.endsWith('A') ? 'B' : 'A');

    const routes = stateChangingRoutes(t.app).filter((r) => !XSRF_EXEMPT.has(`${r.method} ${r.url}`));
    expect(routes.length).toBeGreaterThanOrEqual(30);
    const before = await snapshot(t.app);

    const send = (
      method: string,
      url: string,
      opts: { token?: string; cookies?: Record<string, string>; form?: boolean },
    ) =>
      raw({
        method: method as InjectOptions['method'],
        url,
        headers: {
          authorization: `Bearer ${victim.token}`,
          'content-type': opts.form ? 'application/x-www-form-urlencoded' : 'application/json',
          ...(opts.token !== undefined ? { 'x-xsrf-token': opts.token } : {}),
        },
        cookies: opts.cookies ?? {},
        payload: opts.form ? `email=${encodeURIComponent(user.email)}&_csrf=${encodeURIComponent(good)}` : '{}',
      });
    const jar = { ...victim.cookies };
    const cases: [string, { token?: string; cookies?: Record<string, string>; form?: boolean }][] = [
      ['no header', { cookies: jar }],
      ['no cookies, no header', {}],
      ['header without cookies', { token: good }],
      ['forged header', { token: 'forged-value', cookies: jar }],
      ['old-style nonce.mac header and cookie', { token: 'abc.def', cookies: { ...jar, 'XSRF-TOKEN': 'abc.def' } }],
      ['tampered token', { token: tampered, cookies: { ...jar, 'XSRF-TOKEN': tampered } }],
      [
        "another browser's pair",
        { token: other.cookies['XSRF-TOKEN'], cookies: { ...jar, 'XSRF-TOKEN': other.cookies['XSRF-TOKEN']! } },
      ],
      [
        "another browser's pair, no key",
        { token: other.cookies['XSRF-TOKEN'], cookies: { 'XSRF-TOKEN': other.cookies['XSRF-TOKEN']! } },
      ],
      ["another browser's key with this token", { token: good, cookies: { ...jar, [KEY]: other.cookies[KEY]! } }],
      ['token of the previous key', { token: previous, cookies: { ...jar, 'XSRF-TOKEN': previous } }],
      ['stale token (a day old)', { token: stale.cookies['XSRF-TOKEN'], cookies: stale.cookies }],
      ['token in a form field', { cookies: jar, form: true }],
    ];
    const failures: string[] = [];
    const check = (res: LightMyRequestResponse, what: string, allowed: number[]) => {
      if (!allowed.includes(res.statusCode)) failures.push(`${what}: ${res.statusCode} ${res.body.slice(0, 120)}`);
    };
    for (const route of routes) {
      const url = fillParams(route.url);
      for (const [name, opts] of cases)
        check(await send(route.method, url, opts), `${route.method} ${url} ${name}`, [419]);
      for (const spelled of pathSpellings(url)) {
        check(
          await send(route.method, spelled, { cookies: jar, form: true }),
          `${route.method} ${spelled} form without token`,
          [419, 404, 400],
        );
        check(
          await send(route.method, spelled, {
            cookies: { 'XSRF-TOKEN': other.cookies['XSRF-TOKEN']! },
            token: other.cookies['XSRF-TOKEN'],
          }),
          `${route.method} ${spelled} planted pair`,
          [419, 404, 400],
        );
      }
    }
    expect(failures).toEqual([]);
    expect(await snapshot(t.app)).toEqual(before);

    // The matrix tests the check, not a route that refuses everything: with the right token no route answers 419.
    for (const route of routes) {
      const res = await send(route.method, fillParams(route.url), { token: good, cookies: jar });
      expect(res.statusCode, `${route.method} ${route.url} with a valid token`).not.toBe(419);
    }
  }, 60_000);
});
