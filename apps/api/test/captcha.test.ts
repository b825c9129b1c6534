import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTCHA_FAILED_MESSAGE, CAPTCHA_UNAVAILABLE_MESSAGE } from '@warren/contract';
import { PASSWORD, TestClient, createTestApp, uniqueEmail, type TestApp } from './helpers.js';

/**
 * Captcha against a local fake of the siteverify endpoint (reCAPTCHA and Turnstile speak the
 * same protocol). The fake decides by the response token it is given:
 *   good-*        → { success: true }
 *   once-*        → { success: true } the first time, then { success: false, timeout-or-duplicate }
 *                   (the real providers' single use)
 *   bad-*         → { success: false, error-codes }
 *   truthy-*      → { success: "true" }  (not the boolean: must be refused)
 *   http500-*     → 500
 *   notjson-*     → 200 with a non-JSON body
 *   hangup-*      → the connection is dropped
 */
interface VerifyCall {
  method: string;
  contentType: string;
  form: Record<string, string>;
}
const calls: VerifyCall[] = [];
const spent = new Set<string>();

/** A fake siteverify server on a loopback port; closing it makes the verifier "down" (connection refused). */
async function startFake(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(body));
      calls.push({ method: req.method ?? '', contentType: String(req.headers['content-type'] ?? ''), form });
      const token = form.response ?? '';
      const json = (status: number, payload: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify(payload));
      if (token.startsWith('good-'))
        return json(200, { success: true, challenge_ts: new Date().toISOString(), hostname: 'localhost' });
      if (token.startsWith('once-')) {
        if (spent.has(token)) return json(200, { success: false, 'error-codes': ['timeout-or-duplicate'] });
        spent.add(token);
        return json(200, { success: true, challenge_ts: new Date().toISOString(), hostname: 'localhost' });
      }
      if (token.startsWith('truthy-')) return json(200, { success: 'true' });
      if (token.startsWith('http500-')) return json(500, { success: true });
      if (token.startsWith('notjson-'))
        return res.writeHead(200, { 'content-type': 'text/html', connection: 'close' }).end('<html>oops</html>');
      if (token.startsWith('hangup-')) return req.socket.destroy();
      return json(200, { success: false, 'error-codes': ['invalid-input-response'] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/siteverify`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const FIELD = 'g-recaptcha-response';

describe.each(['recaptcha', 'turnstile'] as const)('captcha provider %s', (provider) => {
  const secret = `${provider}-secret-${Math.random().toString(36).slice(2)}`;
  let t: TestApp;
  let fake: Awaited<ReturnType<typeof startFake>>;

  beforeAll(async () => {
    fake = await startFake();
    t = await createTestApp({
      CAPTCHA_PROVIDER: provider,
      CAPTCHA_SECRET: secret,
      CAPTCHA_SITE_KEY: `${provider}-site-key`,
      CAPTCHA_VERIFY_URL: fake.url,
    });
  });
  afterAll(async () => {
    await Promise.allSettled([t?.close(), fake?.close()]);
  });

  /** Row counts once deferred work (mail, reset tokens made after answering) has landed. */
  const counts = async (app: TestApp) => {
    await app.app.settle();
    const rows = await app.app.db.query<{ users: number; tokens: number; email_tokens: number }>(
      `select (select count(*)::int from users) as users, (select count(*)::int from auth_tokens) as tokens, (select count(*)::int from email_tokens) as email_tokens`,
    );
    return rows[0]!;
  };
  const registerBody = (email: string, captcha?: string) => ({
    email,
    password: PASSWORD,
    password_confirmation: PASSWORD,
    ...(captcha === undefined ? {} : { [FIELD]: captcha }),
  });

  function expectCaptchaError(res: { statusCode: number; json(): unknown; body: string }, message?: string) {
    expect(res.statusCode, res.body).toBe(422);
    const body = res.json() as { message: string; errors: Record<string, string[]> };
    expect(Object.keys(body.errors)).toEqual([FIELD]);
    expect(body.errors[FIELD]![0]).toMatch(/captcha/i);
    if (message) expect(body.errors[FIELD]).toEqual([message]);
  }

  it('tells the web app which provider and site key to use', async () => {
    const res = await new TestClient(t.app).get('/api/brand');
    expect(res.json().data.captcha).toEqual({ provider, siteKey: `${provider}-site-key` });
  });

  it('refuses a sign-up without a captcha response, without asking the verifier and without creating anything', async () => {
    const before = await counts(t);
    const callsBefore = calls.length;
    const c = new TestClient(t.app);
    for (const captcha of [undefined, ''])
      expectCaptchaError(await c.post('/api/users/register', registerBody(uniqueEmail('nocap'), captcha)));
    expectCaptchaError(await c.post('/api/users/login', { email: uniqueEmail(), password: PASSWORD }));
    expectCaptchaError(await c.post('/api/users/requestResetPassword', { email: uniqueEmail() }));
    expect(calls.length).toBe(callsBefore);
    await t.app.settle();
    expect(await counts(t)).toEqual(before);
  });

  it.each([
    ['bad-token', CAPTCHA_FAILED_MESSAGE],
    ['truthy-token', CAPTCHA_FAILED_MESSAGE],
    // The provider could not be asked: refused all the same, but the buyer is told it is not their doing.
    ['http500-token', CAPTCHA_UNAVAILABLE_MESSAGE],
    ['notjson-token', CAPTCHA_UNAVAILABLE_MESSAGE],
    ['hangup-token', CAPTCHA_UNAVAILABLE_MESSAGE],
  ])('refuses a sign-up the verifier does not accept (%s) and creates nothing', async (token, message) => {
    const before = await counts(t);
    const callsBefore = calls.length;
    const email = uniqueEmail('rejected');
    expectCaptchaError(
      await new TestClient(t.app).post('/api/users/register', registerBody(email, `${token}-${email}`)),
      message,
    );
    expect(calls.length).toBe(callsBefore + 1);
    await t.app.settle();
    expect(await counts(t)).toEqual(before);
  });

  it('accepts a sign-up the verifier accepts, and sent it the secret, the response and the client address as a form', async () => {
    const email = uniqueEmail('accepted');
    const response = `good-${email}`;
    const res = await new TestClient(t.app).post('/api/users/register', registerBody(email, response), {
      remoteAddress: '203.0.113.7',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.user.email).toBe(email);
    const call = calls.find((c) => c.form.response === response);
    expect(call).toBeDefined();
    expect(call!.method).toBe('POST');
    expect(call!.contentType).toMatch(/^application\/x-www-form-urlencoded/);
    expect(call!.form).toEqual({ secret, response, remoteip: '203.0.113.7' });
  });

  it('guards sign-in and the reset request the same way; failed captchas do not count as failed passwords', async () => {
    const email = uniqueEmail('login');
    const c = new TestClient(t.app);
    expect((await c.post('/api/users/register', registerBody(email, `good-${email}`))).statusCode).toBe(201);
    for (let i = 0; i < 11; i++)
      expectCaptchaError(await c.post('/api/users/login', { email, password: PASSWORD, [FIELD]: `bad-${i}` }));
    const ok = await c.post('/api/users/login', { email, password: PASSWORD, [FIELD]: `good-login-${email}` });
    expect(ok.statusCode, ok.body).toBe(200);
    expectCaptchaError(await c.post('/api/users/requestResetPassword', { email, [FIELD]: 'bad-reset' }));
    expect(
      (await c.post('/api/users/requestResetPassword', { email, [FIELD]: `good-reset-${email}` })).statusCode,
    ).toBe(200);
  });

  it('many addresses against one account meet the captcha on every try, not a lockout: the owner still signs in', async () => {
    const email = uniqueEmail('spread');
    expect(
      (
        await new TestClient(t.app).post('/api/users/register', registerBody(email, `good-${email}`), {
          remoteAddress: '198.51.100.200',
        })
      ).statusCode,
    ).toBe(201);
    // 30 wrong passwords from 30 addresses, each with a solved captcha: past the account's budget of 20.
    for (let i = 0; i < 30; i++) {
      const res = await new TestClient(t.app).post(
        '/api/users/login',
        { email, password: 'wrong password', [FIELD]: `good-${i}-${email}` },
        { remoteAddress: `198.51.100.${i + 1}` },
      );
      expect(res.statusCode).toBe(422);
    }
    // Without a solved captcha nothing is even evaluated; with one, the owner gets in.
    expectCaptchaError(
      await new TestClient(t.app).post(
        '/api/users/login',
        { email, password: PASSWORD },
        { remoteAddress: '198.51.100.250' },
      ),
    );
    const owner = await new TestClient(t.app).post(
      '/api/users/login',
      { email, password: PASSWORD, [FIELD]: `good-owner-${email}` },
      { remoteAddress: '198.51.100.250' },
    );
    expect(owner.statusCode, owner.body).toBe(200);
  });

  it('every payment call needs a token of its own: none, a replayed one and the second of two parallel payments with one token are refused', async () => {
    const email = uniqueEmail('buyer');
    const c = new TestClient(t.app);
    const reg = await c.post('/api/users/register', registerBody(email, `once-reg-${email}`));
    expect(reg.statusCode, reg.body).toBe(201);
    c.token = reg.json().data.token;
    const pay = (captcha?: string, key = `key-${Math.random().toString(36).slice(2, 12)}`) =>
      c.post('/api/billing/createPayment', {
        tariffId: 3,
        currency: 'USD',
        provider: 'sandbox',
        idempotencyKey: key,
        ...(captcha === undefined ? {} : { [FIELD]: captcha }),
      });
    const paymentsOf = async () =>
      (
        await t.app.db.query<{ n: number }>(
          `select count(*)::int as n from payments p join users u on u.id = p.user_id where u.email = $1`,
          [email],
        )
      )[0]!.n;

    expectCaptchaError(await pay(), CAPTCHA_FAILED_MESSAGE);
    // The sign-up's token does not pay: it was spent.
    expectCaptchaError(await pay(`once-reg-${email}`), CAPTCHA_FAILED_MESSAGE);
    expect(await paymentsOf()).toBe(0);

    const token = `once-pay-${email}`;
    const first = await pay(token);
    expect(first.statusCode, first.body).toBe(200);
    expectCaptchaError(await pay(token), CAPTCHA_FAILED_MESSAGE);
    expectCaptchaError(
      await c.get(`/api/billing/getStripePayment?tariffId=3&currency=USD&${FIELD}=${token}`),
      CAPTCHA_FAILED_MESSAGE,
    );
    expect(await paymentsOf()).toBe(1);

    // Two payments at once with one token: the provider accepts it once.
    const shared = `once-parallel-${email}`;
    const results = await Promise.all([pay(shared), pay(shared), pay(shared)]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 422, 422]);
    expect(await paymentsOf()).toBe(2);
    // A retry of the same attempt (its idempotency key) still needs a fresh token.
    expectCaptchaError(await pay(shared, 'retry-key-1'), CAPTCHA_FAILED_MESSAGE);
    expect((await pay(`once-retry-${email}`, 'retry-key-1')).statusCode).toBe(200);
  });

  // Last: it stops the fake.
  it('answers 422 (not a 5xx) when the verifier is down, and creates nothing', async () => {
    await fake.close();
    const before = await counts(t);
    const c = new TestClient(t.app);
    expectCaptchaError(
      await c.post('/api/users/register', registerBody(uniqueEmail('down'), 'good-but-nobody-listens')),
      CAPTCHA_UNAVAILABLE_MESSAGE,
    );
    expectCaptchaError(
      await c.post('/api/users/login', { email: uniqueEmail(), password: PASSWORD, [FIELD]: 'good-x' }),
    );
    expectCaptchaError(await c.post('/api/users/requestResetPassword', { email: uniqueEmail(), [FIELD]: 'good-y' }));
    await t.app.settle();
    expect(await counts(t)).toEqual(before);
  });
});
