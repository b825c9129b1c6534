import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptText, decryptText } from '../src/lib/secrets.js';
import {
  PASSWORD,
  TestClient,
  createTestApp,
  linkParams,
  mailTo,
  registerUser,
  uniqueEmail,
  type TestApp,
} from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const PROXY_KEY = 'q0Hn7QmZ0nS2b1uV7H3cJm0a9w8E5r2T1y4U6i8O0pA=';

describe('sign-up', () => {
  it('creates an unverified free user, answers user and token, and sends a verification email', async () => {
    const c = new TestClient(t.app);
    const email = uniqueEmail('Mixed.Case');
    const { user, token } = await registerUser(c, email.toUpperCase(), { referralID: 'ref-1', utmSource: 'news' });
    expect(user).toMatchObject({
      email: email.toLowerCase(),
      verified: 0,
      accountStatus: 'Inactive',
      firstName: 'Test User',
    });
    expect(token.length).toBeGreaterThanOrEqual(40);
    const mails = await mailTo(c, t.app, email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toContain('Warren VPN');
    expect(mails[0]!.html).toContain('/sign-in?userId=');
    linkParams(mails[0]!.text, '/sign-in');
  });

  it('refuses a taken email case-insensitively with a field error', async () => {
    const c = new TestClient(t.app);
    const email = uniqueEmail();
    await registerUser(c, email);
    const res = await c.post('/api/users/register', {
      email: email.toUpperCase(),
      password: PASSWORD,
      password_confirmation: PASSWORD,
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors.email).toEqual(['The email has already been taken.']);
  });

  it('marks a mismatched confirmation on password_confirmation', async () => {
    const c = new TestClient(t.app);
    const res = await c.post('/api/users/register', {
      email: uniqueEmail(),
      password: PASSWORD,
      password_confirmation: 'something else',
    });
    expect(res.statusCode).toBe(422);
    expect(Object.keys(res.json().errors)).toEqual(['password_confirmation']);
  });

  it('enforces 8 to 128 characters', async () => {
    const c = new TestClient(t.app);
    for (const pw of ['short', 'x'.repeat(129)]) {
      const res = await c.post('/api/users/register', {
        email: uniqueEmail(),
        password: pw,
        password_confirmation: pw,
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors.password).toHaveLength(1);
    }
  });

  it('never stores unknown fields (no mass assignment)', async () => {
    const c = new TestClient(t.app);
    const { user } = await registerUser(c, uniqueEmail(), {
      verified: 1,
      accountStatus: 'Active',
      isPostAffiliateAvailable: true,
      id: 999999,
    });
    expect(user).toMatchObject({ verified: 0, accountStatus: 'Inactive', isPostAffiliateAvailable: false });
    expect(user.id).not.toBe(999999);
  });
});

describe('verification and sign-in', () => {
  it('verifies once with the emailed link and activates the account', async () => {
    const c = new TestClient(t.app);
    const email = uniqueEmail();
    await registerUser(c, email);
    const { userId, token } = linkParams((await mailTo(c, t.app, email))[0]!.text, '/sign-in');
    const bad = await c.post('/api/users/verifyUser', { userId, token: `${token}x` });
    expect(bad.statusCode).toBe(422);
    const ok = await c.post('/api/users/verifyUser', { userId, token });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data.user).toMatchObject({ verified: 1, accountStatus: 'Active' });
    const again = await c.post('/api/users/verifyUser', { userId, token });
    expect(again.statusCode).toBe(409); // already verified (auth-limits.test.ts has the details)
  });

  it('signs in with the right password and refuses a wrong one with the same message as an unknown email', async () => {
    const c = new TestClient(t.app);
    const email = uniqueEmail();
    await registerUser(c, email);
    const anon = new TestClient(t.app);
    const ok = await anon.post('/api/users/login', { email: email.toUpperCase(), password: PASSWORD });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data.user.email).toBe(email);
    const wrong = await anon.post('/api/users/login', { email, password: 'wrong password' });
    const unknown = await anon.post('/api/users/login', { email: uniqueEmail('nobody'), password: 'wrong password' });
    expect(wrong.statusCode).toBe(422);
    expect(unknown.statusCode).toBe(422);
    expect(wrong.json()).toEqual(unknown.json());
  });

  it('gives info/get to the token holder only and logout revokes the token', async () => {
    const c = new TestClient(t.app);
    const { user } = await registerUser(c);
    const me = await c.get('/api/users/info/get');
    expect(me.statusCode).toBe(200);
    expect(me.json().data.id).toBe(user.id);
    expect((await new TestClient(t.app).get('/api/users/info/get')).statusCode).toBe(401);
    expect((await c.post('/api/users/logout')).statusCode).toBe(200);
    expect((await c.get('/api/users/info/get')).statusCode).toBe(401);
  });

  it('locks an email after 10 failed logins with 429 and Retry-After', async () => {
    const c = new TestClient(t.app);
    const email = uniqueEmail();
    await registerUser(c, email);
    for (let i = 0; i < 10; i++)
      expect((await c.post('/api/users/login', { email, password: 'nope nope' })).statusCode).toBe(422);
    const locked = await c.post('/api/users/login', { email, password: PASSWORD });
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('password reset', () => {
  it('answers the same for known and unknown emails, and the link works once and revokes sessions', async () => {
    const c = new TestClient(t.app);
    const email = uniqueEmail();
    const { token: sessionToken } = await registerUser(c, email);
    const known = await c.post('/api/users/requestResetPassword', { email });
    const unknown = await c.post('/api/users/requestResetPassword', { email: uniqueEmail('ghost') });
    expect(known.statusCode).toBe(200);
    expect(known.json()).toEqual(unknown.json());
    const mail = (await mailTo(c, t.app, email)).find((m) => m.text.includes('/reset-password'))!;
    const { userId, token } = linkParams(mail.text, '/reset-password');
    const mismatch = await c.post('/api/users/resetPassword', {
      userId,
      token,
      password: 'new password 1',
      password_confirmation: 'other',
    });
    expect(mismatch.statusCode).toBe(422);
    const ok = await c.post('/api/users/resetPassword', {
      userId,
      token,
      password: 'new password 1',
      password_confirmation: 'new password 1',
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().message).toBe('Password updated successfully');
    const reused = await c.post('/api/users/resetPassword', {
      userId,
      token,
      password: 'new password 2',
      password_confirmation: 'new password 2',
    });
    expect(reused.statusCode).toBe(422);
    c.token = sessionToken;
    expect((await c.get('/api/users/info/get')).statusCode).toBe(401);
    expect((await c.post('/api/users/login', { email, password: 'new password 1' })).statusCode).toBe(200);
  });
});

describe('XSRF', () => {
  it('refuses a non-GET without a matching signed header with 419', async () => {
    const c = new TestClient(t.app);
    const body = { email: uniqueEmail(), password: PASSWORD };
    expect((await c.post('/api/users/login', body, { headers: { 'x-xsrf-token': 'forged.value' } })).statusCode).toBe(
      419,
    );
    const planted = 'planted.by-sibling';
    const res = await c.post('/api/users/login', body, {
      headers: { 'x-xsrf-token': planted },
      cookies: { 'XSRF-TOKEN': planted },
    });
    expect(res.statusCode).toBe(419);
    const none = await t.app.inject({ method: 'POST', url: '/api/users/login', payload: body });
    expect(none.statusCode).toBe(419);
  });
});

describe('token rotation', () => {
  it('hands out a fresh token when the old one is due and keeps the old one for the grace period', async () => {
    const rot = await createTestApp({ TOKEN_ROTATE_AFTER_MINUTES: '1', TOKEN_GRACE_SECONDS: '60' });
    try {
      const c = new TestClient(rot.app);
      const { token } = await registerUser(c);
      const young = await c.get('/api/users/info/get');
      expect(young.headers.authorization).toBeUndefined();
      await rot.app.db.query(`update auth_tokens set created_at = created_at - interval '5 minutes'`);
      const rotated = await c.get('/api/users/info/get');
      expect(rotated.statusCode).toBe(200);
      const fresh = String(rotated.headers.authorization);
      expect(fresh).toMatch(/^Bearer /);
      expect(fresh.slice(7)).not.toBe(token);
      const old = new TestClient(rot.app);
      old.token = token;
      const stillOk = await old.get('/api/users/info/get');
      expect(stillOk.statusCode).toBe(200);
      expect(stillOk.headers.authorization).toBeUndefined();
    } finally {
      await rot.close();
    }
  });
});

describe('restricted calls', () => {
  const proxyHost = 'proxy.localhost';
  it('registers and logs in with encrypted bodies and refuses plain JSON with 400', async () => {
    const c = new TestClient(t.app, { host: proxyHost });
    const email = uniqueEmail('proxy');
    const payload = { email, password: PASSWORD, password_confirmation: PASSWORD };
    const plain = await c.post('/api/users/restrictedRegister', payload);
    expect(plain.statusCode).toBe(400);
    const reg = await c.post('/api/users/restrictedRegister', encryptText(PROXY_KEY, JSON.stringify(payload)), {
      headers: { 'content-type': 'text/plain' },
    });
    expect(reg.statusCode).toBe(201);
    const decoded = JSON.parse(decryptText(PROXY_KEY, reg.body)!);
    expect(decoded.data.user.email).toBe(email);
    const login = await c.post(
      '/api/users/restrictedLogin',
      encryptText(PROXY_KEY, JSON.stringify({ email, password: PASSWORD })),
      { headers: { 'content-type': 'text/plain' } },
    );
    expect(login.statusCode).toBe(200);
    expect(JSON.parse(decryptText(PROXY_KEY, login.body)!).data.token).toBeTruthy();
    const check = await c.post(
      '/api/users/restrictedUserCheck',
      encryptText(PROXY_KEY, JSON.stringify({ token: decoded.data.token })),
      { headers: { 'content-type': 'text/plain' } },
    );
    expect(JSON.parse(decryptText(PROXY_KEY, check.body)!).data.user.email).toBe(email);
    const garbage = await c.post('/api/users/restrictedLogin', 'bm90IGNpcGhlcnRleHQ=', {
      headers: { 'content-type': 'text/plain' },
    });
    expect(garbage.statusCode).toBe(400);
  });

  it('is unavailable on a main-product host', async () => {
    const c = new TestClient(t.app);
    const res = await c.post('/api/users/restrictedLogin', encryptText(PROXY_KEY, '{}'), {
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.statusCode).toBe(400);
  });
});

describe('one-time login, session and deletion', () => {
  it('one-time link signs in once', async () => {
    const c = new TestClient(t.app);
    const { user } = await registerUser(c);
    const link = await c.get('/api/users/onetimeLinkByPromo?promocode=SPRING');
    expect(link.statusCode).toBe(200);
    const url = new URL(link.json().data.url);
    expect(url.searchParams.get('promocode')).toBe('SPRING');
    const other = new TestClient(t.app);
    const body = { userID: Number(url.searchParams.get('userID')), token: url.searchParams.get('token') };
    const first = await other.post('/api/users/onetimeLogin', body);
    expect(first.statusCode).toBe(200);
    expect(first.json().data.user.id).toBe(user.id);
    expect((await other.post('/api/users/onetimeLogin', body)).statusCode).toBe(422);
  });

  it('session/set stores the analytics session for the user', async () => {
    const c = new TestClient(t.app);
    await registerUser(c);
    const res = await c.post('/api/users/session/set', { sessionID: 'abc-123', voluumID: 'v-1' });
    expect(res.statusCode).toBe(200);
  });

  it('annihilation asks for the password, erases the account, revokes every token and frees the email', async () => {
    const c = new TestClient(t.app);
    const email = uniqueEmail();
    await registerUser(c, email);
    const second = new TestClient(t.app);
    await second
      .post('/api/users/login', { email, password: PASSWORD })
      .then((r) => (second.token = r.json().data.token));
    expect((await c.post('/api/users/annihilation', { password: 'wrong password' })).statusCode).toBe(422);
    const del = await c.post('/api/users/annihilation', { password: PASSWORD });
    expect(del.statusCode).toBe(200);
    expect(del.body).toBe('Account deleted');
    expect((await c.get('/api/users/info/get')).statusCode).toBe(401);
    expect((await second.get('/api/users/info/get')).statusCode).toBe(401);
    expect((await c.post('/api/users/login', { email, password: PASSWORD })).statusCode).toBe(422);
    await registerUser(new TestClient(t.app), email);
  });
});

describe('system', () => {
  it('health reports the database and every answer carries a request id', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.json()).toEqual({ data: { status: 'ok', db: 'ok' } });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves the OpenAPI document', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json().paths)).toContain('/api/users/login');
  });

  it('answers unknown API paths with the error shape', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ message: 'Not found.' });
  });
});
