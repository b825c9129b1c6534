// The profile (modules/profile): names and language, password, sessions, two-factor sign-in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../src/lib/totp.js';
import { keyringOf } from '../src/lib/keyring.js';
import {
  PASSWORD,
  TestClient,
  createTestApp,
  mailTo,
  registerUser,
  signedUpClient,
  uniqueEmail,
  type TestApp,
} from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ JOBS: 'false', REWARD_DAYS: '14' });
});
afterAll(async () => {
  await t?.close();
});

describe('profile', () => {
  it('updates names and language', async () => {
    const { c } = await signedUpClient(t.app);
    const res = await c.post('/api/profile/update', { firstName: 'Ada', secondName: 'Lovelace', language: 'ru' });
    expect(res.json().data).toMatchObject({ firstName: 'Ada', secondName: 'Lovelace', language: 'ru' });
    expect((await c.get('/api/users/info/get')).json().data).toMatchObject({ firstName: 'Ada', language: 'ru' });
  });

  it('changes the password with the current one and signs out the other sessions only', async () => {
    const email = uniqueEmail();
    const a = new TestClient(t.app);
    await registerUser(a, email);
    const b = new TestClient(t.app);
    b.token = (await b.post('/api/users/login', { email, password: PASSWORD })).json().data.token;
    const wrong = await a.post('/api/profile/password', {
      currentPassword: 'nope nope',
      password: 'brand new pass',
      password_confirmation: 'brand new pass',
    });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors.currentPassword).toBeDefined();
    const ok = await a.post('/api/profile/password', {
      currentPassword: PASSWORD,
      password: 'brand new pass',
      password_confirmation: 'brand new pass',
    });
    expect(ok.statusCode).toBe(200);
    expect((await a.get('/api/users/info/get')).statusCode).toBe(200);
    expect((await b.get('/api/users/info/get')).statusCode).toBe(401);
  });

  it("lists sessions, signs out one, and cannot touch another user's session", async () => {
    const email = uniqueEmail();
    const a = new TestClient(t.app);
    await registerUser(a, email);
    const b = new TestClient(t.app);
    b.token = (
      await b.post('/api/users/login', { email, password: PASSWORD }, { headers: { 'user-agent': 'Phone' } })
    ).json().data.token;
    const sessions = (await a.get('/api/profile/sessions')).json().data.items as {
      id: number;
      current: boolean;
      userAgent: string;
    }[];
    expect(sessions).toHaveLength(2);
    expect(sessions.filter((s) => s.current)).toHaveLength(1);
    const other = sessions.find((s) => !s.current)!;
    const stranger = (await signedUpClient(t.app)).c;
    expect((await stranger.post('/api/profile/sessions/revoke', { id: other.id })).statusCode).toBe(404);
    expect((await a.post('/api/profile/sessions/revoke', { id: other.id })).statusCode).toBe(200);
    expect((await b.get('/api/users/info/get')).statusCode).toBe(401);
  });

  it('one-click unsubscribe works without signing in and only with a valid signature', async () => {
    const { user } = await signedUpClient(t.app);
    const { profileService } = await import('../src/modules/profile/service.js');
    const link = new URL(
      profileService({
        db: t.app.db,
        keys: keyringOf(t.config),
        mailer: { send: async () => {}, close() {} },
        limiter: {} as never,
        defer: () => {},
        productName: () => 'Warren VPN',
      }).unsubscribeLink('http://localhost', user.id),
    );
    const forged = await t.app.inject({
      method: 'POST',
      url: `/unsubscribe?u=${user.id}&sig=${'x'.repeat(43)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(forged.statusCode).toBe(400);
    const res = await t.app.inject({
      method: 'POST',
      url: `${link.pathname}${link.search}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(res.statusCode).toBe(200);
    const [row] = await t.app.db.query<{ marketing_emails: boolean }>(
      'select marketing_emails from users where id = $1',
      [user.id],
    );
    expect(row?.marketing_emails).toBe(false);
  });

  it("set-new-pass needs the mailed token, once, and not another user's", async () => {
    const { c } = await signedUpClient(t.app);
    const noToken = await c.post('/api/users/setNewPassword', {
      password: 'fresh password',
      password_confirmation: 'fresh password',
    });
    expect(noToken.statusCode).toBe(422);
    expect(noToken.json().errors.token).toBeDefined();
    expect((await c.post('/api/users/setNewPassword/sendLink')).statusCode).toBe(200);
    const me = (await c.get('/api/users/info/get')).json().data;
    const mail = (await mailTo(c, t.app, me.email)).find((m) => m.text.includes('/set-new-pass?token='))!;
    const token = decodeURIComponent(/\/set-new-pass\?token=([^\s&]+)/.exec(mail.text)![1]!);
    const stranger = (await signedUpClient(t.app)).c;
    expect(
      (
        await stranger.post('/api/users/setNewPassword', {
          token,
          password: 'stolen password',
          password_confirmation: 'stolen password',
        })
      ).statusCode,
    ).toBe(422);
    expect(
      (
        await c.post('/api/users/setNewPassword', {
          token,
          password: 'fresh password',
          password_confirmation: 'fresh password',
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (
        await c.post('/api/users/setNewPassword', {
          token,
          password: 'fresher password',
          password_confirmation: 'fresher password',
        })
      ).statusCode,
    ).toBe(422);
  });
});

describe('two-factor sign-in', () => {
  it('asks for the code once on, accepts the authenticator code and a recovery code once', async () => {
    const email = uniqueEmail();
    const c = new TestClient(t.app);
    await registerUser(c, email);
    const setup = (await c.post('/api/profile/2fa/setup')).json().data;
    expect(setup.otpauthUrl).toContain('otpauth://totp/');
    const secret = setup.secret as string;
    expect((await c.post('/api/profile/2fa/enable', { code: '000000' })).statusCode).toBe(422);
    // The previous step's code turns it on; the current one is left for signing in (each step is good once).
    const enabled = await c.post('/api/profile/2fa/enable', { code: totpCode(secret, Date.now() - 30_000) });
    expect(enabled.statusCode).toBe(200);
    const codes = enabled.json().data.recoveryCodes as string[];
    expect(codes).toHaveLength(10);

    const anon = new TestClient(t.app);
    const asked = await anon.post('/api/users/login', { email, password: PASSWORD });
    expect(asked.statusCode).toBe(422);
    expect(asked.json().errors.otp).toBeDefined();
    expect((await anon.post('/api/users/login', { email, password: PASSWORD, otp: '123456' })).statusCode).toBe(422);
    expect(
      (await anon.post('/api/users/login', { email, password: PASSWORD, otp: totpCode(secret, Date.now()) }))
        .statusCode,
    ).toBe(200);
    expect(
      (await anon.post('/api/users/login', { email, password: PASSWORD, otp: codes[0]!.toUpperCase() })).statusCode,
    ).toBe(200);
    expect((await anon.post('/api/users/login', { email, password: PASSWORD, otp: codes[0]! })).statusCode).toBe(422);
    expect((await c.get('/api/profile')).json().data).toMatchObject({ twoFactorEnabled: true, recoveryCodesLeft: 9 });
    expect((await c.post('/api/profile/2fa/disable', { password: PASSWORD })).statusCode).toBe(422);
    expect((await c.post('/api/profile/2fa/disable', { password: PASSWORD, code: codes[1]! })).statusCode).toBe(200);
    expect((await anon.post('/api/users/login', { email, password: PASSWORD })).statusCode).toBe(200);
  });
});
