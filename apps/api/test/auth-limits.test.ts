import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisRateLimiter, storedBudgetKey } from '../src/lib/rate-limit.js';
import { encryptText } from '../src/lib/secrets.js';
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

/**
 * Issue 11, accounts: the account-takeover chain, atomic limits (a try is counted before it is
 * evaluated), no lockout handed to attackers, two-factor disable/replay. Runs on PGlite with the
 * in-memory limiter, and on PostgreSQL with the Redis limiter when TEST_DATABASE_URL and a Redis
 * URL are set (CI). Every client address is random so runs never share Redis windows.
 */
const REDIS_URL = process.env.REDIS_TEST_URL ?? process.env.TEST_REDIS_URL;
const withRedis = Boolean(process.env.TEST_DATABASE_URL && REDIS_URL);

let t: TestApp;
// Redis keys of our own: fresh schemas reuse user ids, and some budgets are per user.
const redisPrefix = `warren:test:${randomBytes(6).toString('hex')}`;
beforeAll(async () => {
  const limiter = withRedis ? createRedisRateLimiter(REDIS_URL!, () => undefined, redisPrefix) : undefined;
  t = await createTestApp({ TRUST_PROXY: 'true', JOBS: 'false' }, limiter ? { limiter } : {});
});
afterAll(async () => {
  await t?.close();
});

/** A fresh client address per call (10/8 with random octets): no window of another test or run counts. */
const newIp = () => `10.${[...randomBytes(3)].join('.')}`;
const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
const count = (rs: LightMyRequestResponse[], status: number) => rs.filter((r) => r.statusCode === status).length;
const N = 60;

/** Signs up from an address of its own: the per-address sign-up budget is not what these tests are about. */
async function register(c: TestClient, email: string, extra: Record<string, unknown> = {}) {
  const res = await c.post(
    '/api/users/register',
    { name: 'Test User', email, password: PASSWORD, password_confirmation: PASSWORD, ...extra },
    from(newIp()),
  );
  expect(res.statusCode, res.body).toBe(201);
  const data = res.json().data as { user: { id: number; email: string }; token: string };
  c.token = data.token;
  return data;
}

async function signedUp(email = uniqueEmail()) {
  const c = new TestClient(t.app);
  const { user, token } = await register(c, email);
  return { c, user, token, email };
}

async function onetimeLinkOf(c: TestClient) {
  const res = await c.get('/api/users/onetimeLinkByPromo');
  expect(res.statusCode, res.body).toBe(200);
  const url = new URL(res.json().data.url);
  return { userID: Number(url.searchParams.get('userID')), token: url.searchParams.get('token')! };
}

async function withTwoFactor(c: TestClient) {
  const setup = (await c.post('/api/profile/2fa/setup')).json().data as { secret: string };
  const totp = new TOTP({ secret: setup.secret, digits: 6, period: 30, algorithm: 'SHA1' });
  // The next step's code: the login tests below use the current one, which enabling would spend.
  const enabled = await c.post('/api/profile/2fa/enable', { code: totp.generate({ timestamp: Date.now() + 30_000 }) });
  expect(enabled.statusCode, enabled.body).toBe(200);
  return { totp, recoveryCodes: enabled.json().data.recoveryCodes as string[] };
}

describe('finding 1: a stolen session cannot take the account over', () => {
  it('the whole chain fails: link minted with a stolen token dies with the password change; setNewPassword needs a mailed token', async () => {
    const { token: stolen, email } = await signedUp();
    const attacker = new TestClient(t.app);
    attacker.token = stolen;
    const link = await onetimeLinkOf(attacker);

    // The victim, on another device, changes the password: the stolen session is gone...
    const victim = new TestClient(t.app);
    victim.token = (
      await victim.post('/api/users/login', { email, password: PASSWORD }, from(newIp()))
    ).json().data.token;
    const changed = await victim.post('/api/profile/password', {
      currentPassword: PASSWORD,
      password: 'victim new pass',
      password_confirmation: 'victim new pass',
    });
    expect(changed.statusCode).toBe(200);
    expect((await attacker.get('/api/users/info/get')).statusCode).toBe(401);

    // ...and so is the link it minted.
    const viaLink = await new TestClient(t.app).post('/api/users/onetimeLogin', link);
    expect(viaLink.statusCode).toBe(422);

    // A brand-new sign-in (fresh session) still cannot set a password without a mailed token.
    const fresh = new TestClient(t.app);
    fresh.token = (
      await fresh.post('/api/users/login', { email, password: 'victim new pass' }, from(newIp()))
    ).json().data.token;
    const noToken = await fresh.post('/api/users/setNewPassword', {
      password: 'attacker pass 1',
      password_confirmation: 'attacker pass 1',
    });
    expect(noToken.statusCode).toBe(422);
    const forged = await fresh.post('/api/users/setNewPassword', {
      token: 'x'.repeat(32),
      password: 'attacker pass 1',
      password_confirmation: 'attacker pass 1',
    });
    expect(forged.statusCode).toBe(422);
    expect(forged.json().errors.token).toBeDefined();
    expect(
      (await new TestClient(t.app).post('/api/users/login', { email, password: 'victim new pass' }, from(newIp())))
        .statusCode,
    ).toBe(200);
  });

  it('a one-time-link sign-in does not let setNewPassword skip the mailbox; the mailed link does', async () => {
    const { c, user, email } = await signedUp();
    const link = await onetimeLinkOf(c);
    const viaLink = new TestClient(t.app);
    const signed = await viaLink.post('/api/users/onetimeLogin', link);
    expect(signed.statusCode).toBe(200);
    viaLink.token = signed.json().data.token;
    expect(
      (
        await viaLink.post('/api/users/setNewPassword', {
          password: 'linked pass 1',
          password_confirmation: 'linked pass 1',
        })
      ).statusCode,
    ).toBe(422);

    expect((await c.post('/api/users/setNewPassword/sendLink')).statusCode).toBe(200);
    const mail = (await mailTo(c, t.app, email)).find((m) => m.text.includes('/set-new-pass?token='))!;
    const token = decodeURIComponent(/\/set-new-pass\?token=([^\s&]+)/.exec(mail.text)![1]!);
    const ok = await c.post('/api/users/setNewPassword', {
      token,
      password: 'mailed pass 1',
      password_confirmation: 'mailed pass 1',
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(
      (
        await c.post('/api/users/setNewPassword', {
          token,
          password: 'mailed pass 2',
          password_confirmation: 'mailed pass 2',
        })
      ).statusCode,
    ).toBe(422);
    // Another user's session cannot spend this user's token either.
    void user;
  });

  it.each([
    [
      'password change',
      async (c: TestClient) =>
        c.post('/api/profile/password', {
          currentPassword: PASSWORD,
          password: 'changed pass 1',
          password_confirmation: 'changed pass 1',
        }),
    ],
    ['sign-out everywhere', async (c: TestClient) => c.post('/api/profile/sessions/revokeOthers')],
    [
      '2FA on',
      async (c: TestClient) => {
        const { secret } = (await c.post('/api/profile/2fa/setup')).json().data;
        return c.post('/api/profile/2fa/enable', { code: new TOTP({ secret }).generate() });
      },
    ],
  ])('%s kills every outstanding one-time link and reset token', async (_name, change) => {
    const { c, email } = await signedUp();
    const link = await onetimeLinkOf(c);
    await c.post('/api/users/requestResetPassword', { email }, from(newIp()));
    const reset = linkParams(
      (await mailTo(c, t.app, email)).find((m) => m.text.includes('/reset-password'))!.text,
      '/reset-password',
    );
    expect((await change(c)).statusCode).toBe(200);
    expect((await new TestClient(t.app).post('/api/users/onetimeLogin', link)).statusCode).toBe(422);
    const res = await new TestClient(t.app).post('/api/users/resetPassword', {
      ...reset,
      password: 'reset pass 1',
      password_confirmation: 'reset pass 1',
    });
    expect(res.statusCode).toBe(422);
  });

  it('a password reset kills the other one-time links', async () => {
    const { c, email } = await signedUp();
    const link = await onetimeLinkOf(c);
    await c.post('/api/users/requestResetPassword', { email }, from(newIp()));
    const reset = linkParams(
      (await mailTo(c, t.app, email)).find((m) => m.text.includes('/reset-password'))!.text,
      '/reset-password',
    );
    expect(
      (
        await new TestClient(t.app).post('/api/users/resetPassword', {
          ...reset,
          password: 'reset pass 1',
          password_confirmation: 'reset pass 1',
        })
      ).statusCode,
    ).toBe(200);
    expect((await new TestClient(t.app).post('/api/users/onetimeLogin', link)).statusCode).toBe(422);
  });

  it(`minting one-time links is limited: ${N} parallel mints give at most 5 links, and only the newest works`, async () => {
    const { c } = await signedUp();
    const rs = await Promise.all(Array.from({ length: N }, () => c.get('/api/users/onetimeLinkByPromo')));
    expect(count(rs, 200)).toBeLessThanOrEqual(5);
    expect(count(rs, 200)).toBeGreaterThan(0);
    expect(count(rs, 429)).toBe(N - count(rs, 200));
    expect(Number(rs.find((r) => r.statusCode === 429)!.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('finding 4: a try is counted before it is evaluated', () => {
  it(`${N} parallel sign-ins from one address, the right password at #40: at most 10 evaluated`, async () => {
    const { email } = await signedUp();
    const ip = newIp();
    const rs = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        new TestClient(t.app).post(
          '/api/users/login',
          { email, password: i === 39 ? PASSWORD : 'wrong password' },
          from(ip),
        ),
      ),
    );
    const evaluated = count(rs, 422) + count(rs, 200);
    expect(evaluated).toBeLessThanOrEqual(10);
    expect(count(rs, 429)).toBe(N - evaluated);
  });

  it(`${N} parallel TOTP codes from ${N} addresses: at most 10 codes evaluated`, async () => {
    const { c, email } = await signedUp();
    await withTwoFactor(c);
    const rs = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        new TestClient(t.app).post(
          '/api/users/login',
          { email, password: PASSWORD, otp: String(100000 + i) },
          from(newIp()),
        ),
      ),
    );
    expect(count(rs, 422)).toBeLessThanOrEqual(10);
    expect(count(rs, 200)).toBe(0);
    expect(count(rs, 429)).toBeGreaterThanOrEqual(N - 10);
  });

  it(`one recovery code sent ${N / 3} times in parallel signs in once`, async () => {
    const { c, email } = await signedUp();
    const { recoveryCodes } = await withTwoFactor(c);
    const rs = await Promise.all(
      Array.from({ length: N / 3 }, () =>
        new TestClient(t.app).post(
          '/api/users/login',
          { email, password: PASSWORD, otp: recoveryCodes[0] },
          from(newIp()),
        ),
      ),
    );
    expect(count(rs, 200)).toBe(1);
  });

  // 8 in parallel: below the code budget, so the replays after it are evaluated (and refused), not just throttled.
  it('one TOTP code sent 8 times in parallel signs in once, and it and earlier codes are refused afterwards (finding 7)', async () => {
    const { c, email } = await signedUp();
    const { totp } = await withTwoFactor(c);
    // Enabling spent the next step; let the clock "pass" it the way a real minute would.
    await t.app.db.query('update users set totp_last_step = totp_last_step - 2 where lower(email) = $1', [email]);
    const code = totp.generate();
    const rs = await Promise.all(
      Array.from({ length: 8 }, () =>
        new TestClient(t.app).post('/api/users/login', { email, password: PASSWORD, otp: code }, from(newIp())),
      ),
    );
    expect(count(rs, 200)).toBe(1);
    const replay = await new TestClient(t.app).post(
      '/api/users/login',
      { email, password: PASSWORD, otp: code },
      from(newIp()),
    );
    expect(replay.statusCode).toBe(422);
    expect(replay.json().errors.otp).toBeDefined();
    const earlier = await new TestClient(t.app).post(
      '/api/users/login',
      { email, password: PASSWORD, otp: totp.generate({ timestamp: Date.now() - 30_000 }) },
      from(newIp()),
    );
    expect(earlier.statusCode).toBe(422);
  });

  it(`${N} parallel uses of one reset link: one password set`, async () => {
    const { email } = await signedUp();
    const c = new TestClient(t.app);
    await c.post('/api/users/requestResetPassword', { email }, from(newIp()));
    const reset = linkParams(
      (await mailTo(c, t.app, email)).find((m) => m.text.includes('/reset-password'))!.text,
      '/reset-password',
    );
    const rs = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        new TestClient(t.app).post(
          '/api/users/resetPassword',
          { ...reset, password: `parallel pass ${i}`, password_confirmation: `parallel pass ${i}` },
          from(newIp()),
        ),
      ),
    );
    expect(count(rs, 200)).toBe(1);
  });

  it(`${N} parallel uses of one verification link: verified once, the others hear "already verified"`, async () => {
    const { c, email } = await signedUp();
    const link = linkParams((await mailTo(c, t.app, email))[0]!.text, '/sign-in');
    const rs = await Promise.all(
      Array.from({ length: N }, () => new TestClient(t.app).post('/api/users/verifyUser', link, from(newIp()))),
    );
    expect(count(rs, 200)).toBe(1);
    expect(count(rs, 409)).toBe(N - 1);
  });

  it(`${N} parallel uses of one one-time link: one session`, async () => {
    const { c } = await signedUp();
    const link = await onetimeLinkOf(c);
    const rs = await Promise.all(
      Array.from({ length: N }, () => new TestClient(t.app).post('/api/users/onetimeLogin', link, from(newIp()))),
    );
    expect(count(rs, 200)).toBe(1);
  });

  it(`${N} parallel guessed link tokens from one address: at most 30 evaluated`, async () => {
    const { user } = await signedUp();
    const ip = newIp();
    const rs = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        new TestClient(t.app).post(
          '/api/users/onetimeLogin',
          { userID: user.id, token: `guess-${i}-${'x'.repeat(30)}` },
          from(ip),
        ),
      ),
    );
    expect(count(rs, 422)).toBeLessThanOrEqual(30);
    expect(count(rs, 429)).toBe(N - count(rs, 422));
  });

  it(`${N} parallel password changes with wrong passwords: at most 10 evaluated, then 429 with Retry-After (finding 11)`, async () => {
    const { c } = await signedUp();
    const rs = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        c.post('/api/profile/password', {
          currentPassword: `wrong pass ${i}`,
          password: 'whatever pass',
          password_confirmation: 'whatever pass',
        }),
      ),
    );
    expect(count(rs, 422)).toBeLessThanOrEqual(10);
    expect(count(rs, 429)).toBe(N - count(rs, 422));
    expect(Number(rs.find((r) => r.statusCode === 429)!.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe.skipIf(!withRedis)('on Redis', () => {
  it('the budgets of this run are counted in Redis', async () => {
    const { email } = await signedUp();
    await new TestClient(t.app).post('/api/users/login', { email, password: 'wrong password' }, from(newIp()));
    const redis = new Redis(REDIS_URL!);
    try {
      // Keyed by a digest of the email, never the email (lib/rate-limit.ts).
      expect(Number(await redis.get(`${redisPrefix}:login-account:${storedBudgetKey(email)}`))).toBe(1);
      expect(await redis.exists(`${redisPrefix}:login-account:${email}`)).toBe(0);
    } finally {
      redis.disconnect();
    }
  });
});

describe('finding 5: no lockout handed to attackers', () => {
  it("a stolen session that uses up its password tries does not keep the owner's session from changing the password", async () => {
    const { c: owner, token, email } = await signedUp();
    // The owner signs in on another device; the thief holds the first session.
    const thief = new TestClient(t.app);
    thief.token = token;
    owner.token = (
      await owner.post('/api/users/login', { email, password: PASSWORD }, from(newIp()))
    ).json().data.token;
    const tries = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        thief.post('/api/profile/password', {
          currentPassword: `guess ${i} guess`,
          password: 'thief pass 1',
          password_confirmation: 'thief pass 1',
        }),
      ),
    );
    expect(count(tries, 429)).toBeGreaterThan(0);
    const ok = await owner.post('/api/profile/password', {
      currentPassword: PASSWORD,
      password: 'owner pass 1',
      password_confirmation: 'owner pass 1',
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect((await thief.get('/api/users/info/get')).statusCode).toBe(401);
  });

  it('wrong passwords from one address lock that address out, not the victim on another (X-Forwarded-For behind TRUST_PROXY)', async () => {
    const { email } = await signedUp();
    const attacker = newIp();
    for (let i = 0; i < 12; i++)
      await new TestClient(t.app).post('/api/users/login', { email, password: 'wrong password' }, from(attacker));
    const blocked = await new TestClient(t.app).post('/api/users/login', { email, password: PASSWORD }, from(attacker));
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    const victim = await new TestClient(t.app).post('/api/users/login', { email, password: PASSWORD }, from(newIp()));
    expect(victim.statusCode).toBe(200);
  });

  it('behind TRUST_PROXY a forged X-Forwarded-For entry buys no fresh budget: the address is the one the load balancer appended', async () => {
    const { email } = await signedUp();
    const attacker = newIp();
    const rs: number[] = [];
    // The attacker sends a new made-up address each time; the balancer appends the real one.
    for (let i = 0; i < 12; i++)
      rs.push(
        (
          await new TestClient(t.app).post(
            '/api/users/login',
            { email, password: 'wrong password' },
            { headers: { 'x-forwarded-for': `${newIp()}, ${attacker}` } },
          )
        ).statusCode,
      );
    expect(rs.slice(10)).toEqual([429, 429]);
  });

  it('without TRUST_PROXY a forged X-Forwarded-For buys no fresh budget', async () => {
    const plain = await createTestApp({ JOBS: 'false' });
    try {
      const c = new TestClient(plain.app);
      const email = uniqueEmail();
      await registerUser(c, email);
      const rs: number[] = [];
      for (let i = 0; i < 12; i++)
        rs.push(
          (
            await new TestClient(plain.app).post(
              '/api/users/login',
              { email, password: 'wrong password' },
              from(newIp()),
            )
          ).statusCode,
        );
      expect(rs.slice(10)).toEqual([429, 429]);
    } finally {
      await plain.close();
    }
  });

  it('many addresses guessing one account slow it down instead of locking it: tries are spaced, the count stays bounded', async () => {
    const { email } = await signedUp();
    const rs: LightMyRequestResponse[] = [];
    for (let i = 0; i < 30; i++)
      rs.push(
        await new TestClient(t.app).post('/api/users/login', { email, password: 'wrong password' }, from(newIp())),
      );
    // 20 failures from anywhere, then one evaluation per few seconds for the whole account.
    expect(count(rs, 422)).toBeLessThanOrEqual(21);
    expect(count(rs, 429)).toBeGreaterThanOrEqual(9);
  });
});

describe('issue 20, finding 5: one account, one budget', () => {
  const wrong = (door: 'customer' | 'staff', email: string, ip: string) =>
    door === 'customer'
      ? new TestClient(t.app).post('/api/users/login', { email, password: 'wrong password' }, from(ip))
      : new TestClient(t.app).post(
          '/api/staff/session',
          { email, password: 'wrong password', code: '123456' },
          from(ip),
        );
  /** A /64 of its own per call (2001:db8::/32 is the documentation prefix). */
  const newNet = () => `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;

  it('guesses from 2001:db8::1 and 2001:db8::2 share a budget: an IPv6 address counts as its /64 (and ::ffff:a.b.c.d as a.b.c.d)', async () => {
    const { email } = await signedUp();
    const net = newNet();
    for (let i = 0; i < 5; i++) expect((await wrong('customer', email, `${net}::1`)).statusCode).toBe(422);
    for (let i = 0; i < 5; i++) expect((await wrong('customer', email, `${net}::2`)).statusCode).toBe(422);
    // The /64's ten are used up, whichever address of it asks next; another /64 still gets in.
    expect(
      (
        await new TestClient(t.app).post(
          '/api/users/login',
          { email, password: PASSWORD },
          from(`${net}:ffff:ffff:ffff:ffff`),
        )
      ).statusCode,
    ).toBe(429);
    expect(
      (await new TestClient(t.app).post('/api/users/login', { email, password: PASSWORD }, from(`${newNet()}::1`)))
        .statusCode,
    ).toBe(200);

    const { email: other } = await signedUp();
    const v4 = newIp();
    for (let i = 0; i < 5; i++) await wrong('customer', other, v4);
    for (let i = 0; i < 5; i++) await wrong('customer', other, `::ffff:${v4}`);
    expect(
      (await new TestClient(t.app).post('/api/users/login', { email: other, password: PASSWORD }, from(v4))).statusCode,
    ).toBe(429);
  });

  it('5 customer + 5 staff guesses from one address use up the one per-address budget of the account, at both doors', async () => {
    const { email } = await signedUp();
    const ip = newIp();
    for (let i = 0; i < 5; i++) expect((await wrong('customer', email, ip)).statusCode).toBe(422);
    for (let i = 0; i < 5; i++) expect((await wrong('staff', email, ip)).statusCode).toBe(422);
    expect(
      (await new TestClient(t.app).post('/api/users/login', { email, password: PASSWORD }, from(ip))).statusCode,
    ).toBe(429);
    expect((await wrong('staff', email, ip)).statusCode).toBe(429);
  });

  it('10 customer + 10 staff guesses from 20 addresses use up the one account budget (20, not 2 x 20): the account is slowed down', async () => {
    const { email } = await signedUp();
    for (let i = 0; i < 10; i++) expect((await wrong('customer', email, newIp())).statusCode).toBe(422);
    for (let i = 0; i < 10; i++) expect((await wrong('staff', email, newIp())).statusCode).toBe(422);
    // Beyond the budget one try per 5 seconds is evaluated: of two at once, one waits.
    const next = await Promise.all(
      [0, 1].map(() => new TestClient(t.app).post('/api/users/login', { email, password: PASSWORD }, from(newIp()))),
    );
    expect(next.map((r) => r.statusCode).sort()).toEqual([200, 429]);
  });
});

describe('finding 6: turning two-factor off', () => {
  it(`turning it on is budgeted too: ${N} parallel wrong codes, at most 10 evaluated`, async () => {
    const { c } = await signedUp();
    await c.post('/api/profile/2fa/setup');
    const rs = await Promise.all(
      Array.from({ length: N }, (_, i) => c.post('/api/profile/2fa/enable', { code: String(400000 + i) })),
    );
    expect(count(rs, 422)).toBeLessThanOrEqual(10);
    expect(count(rs, 429)).toBe(N - count(rs, 422));
  });

  it('needs the password and a current code or a recovery code, within a limit', async () => {
    const { c } = await signedUp();
    const { totp, recoveryCodes } = await withTwoFactor(c);
    const passwordOnly = await c.post('/api/profile/2fa/disable', { password: PASSWORD });
    expect(passwordOnly.statusCode).toBe(422);
    expect(passwordOnly.json().errors.code).toBeDefined();
    expect(
      (await c.post('/api/profile/2fa/disable', { password: 'wrong password', code: totp.generate() })).statusCode,
    ).toBe(422);
    const rs = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        c.post('/api/profile/2fa/disable', { password: PASSWORD, code: String(200000 + i) }),
      ),
    );
    expect(count(rs, 422)).toBeLessThanOrEqual(10);
    expect(count(rs, 200)).toBe(0);
    expect(count(rs, 429)).toBeGreaterThanOrEqual(N - 10);
    void recoveryCodes;
  });

  it('turns off with the password and a recovery code', async () => {
    const { c, email } = await signedUp();
    const { recoveryCodes } = await withTwoFactor(c);
    const off = await c.post('/api/profile/2fa/disable', { password: PASSWORD, code: recoveryCodes[1] });
    expect(off.statusCode, off.body).toBe(200);
    expect(
      (await new TestClient(t.app).post('/api/users/login', { email, password: PASSWORD }, from(newIp()))).statusCode,
    ).toBe(200);
  });
});

describe('finding 11 and smaller', () => {
  it('a rotated session keeps its user agent in the sessions list', async () => {
    const rot = await createTestApp({ TOKEN_ROTATE_AFTER_MINUTES: '1', JOBS: 'false' });
    try {
      const c = new TestClient(rot.app);
      const email = uniqueEmail();
      await registerUser(c, email);
      const phone = new TestClient(rot.app);
      phone.token = (
        await phone.post('/api/users/login', { email, password: PASSWORD }, { headers: { 'user-agent': 'Phone/1.0' } })
      ).json().data.token;
      await rot.app.db.query(`update auth_tokens set created_at = created_at - interval '5 minutes'`);
      const rotated = await phone.get('/api/users/info/get', { headers: { 'user-agent': 'Phone/1.0' } });
      expect(String(rotated.headers.authorization)).toMatch(/^Bearer /);
      const items = (await phone.get('/api/profile/sessions')).json().data.items as {
        current: boolean;
        userAgent: string;
      }[];
      expect(items.find((s) => s.current)?.userAgent).toBe('Phone/1.0');
    } finally {
      await rot.close();
    }
  });

  it.each(['Ada\nLovelace', 'Ada\rX', 'Ada\u0007', 'Ada\u2028X', 'Ada\u202eX'])(
    'refuses the name %j with a field message',
    async (name) => {
      const { c } = await signedUp();
      const res = await c.post('/api/profile/update', { firstName: name, secondName: name });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors.firstName).toBeDefined();
      expect(res.json().errors.secondName).toBeDefined();
      const reg = await new TestClient(t.app).post(
        '/api/users/register',
        { name, email: uniqueEmail(), password: PASSWORD, password_confirmation: PASSWORD },
        from(newIp()),
      );
      expect(reg.statusCode).toBe(422);
      expect(reg.json().errors.name).toBeDefined();
    },
  );
});

describe('money: verification, restricted hosts, attribution', () => {
  it('a verification link opened again says the account is already verified', async () => {
    const { c, email } = await signedUp();
    const link = linkParams((await mailTo(c, t.app, email))[0]!.text, '/sign-in');
    expect((await c.post('/api/users/verifyUser', link)).statusCode).toBe(200);
    const again = await c.post('/api/users/verifyUser', link);
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toMatch(/already verified/i);
    // A made-up token for that user learns nothing.
    expect((await c.post('/api/users/verifyUser', { ...link, token: 'y'.repeat(32) })).statusCode).toBe(422);
  });

  it('an expired or superseded verification link can ask for a new mail, signed out', async () => {
    const { c, email } = await signedUp();
    const first = linkParams((await mailTo(c, t.app, email))[0]!.text, '/sign-in');
    expect((await c.post('/api/users/resendVerification')).statusCode).toBe(200);
    expect((await new TestClient(t.app).post('/api/users/verifyUser', first)).statusCode).toBe(422);
    const resend = await new TestClient(t.app).post('/api/users/resendVerificationByLink', first, from(newIp()));
    expect(resend.statusCode).toBe(200);
    const mails = await mailTo(c, t.app, email);
    expect(mails).toHaveLength(3);
    const latest = linkParams(mails.at(-1)!.text, '/sign-in');
    expect((await new TestClient(t.app).post('/api/users/verifyUser', latest)).statusCode).toBe(200);
    // Made-up tokens send nothing, and answer the same.
    const forged = await new TestClient(t.app).post(
      '/api/users/resendVerificationByLink',
      { ...first, token: 'z'.repeat(32) },
      from(newIp()),
    );
    expect(forged.statusCode).toBe(200);
    expect(await mailTo(c, t.app, email)).toHaveLength(3);
  });

  it('restricted hosts refuse the plain JSON login, register and reset', async () => {
    const c = new TestClient(t.app, { host: 'proxy.localhost' });
    const email = uniqueEmail('plain');
    for (const [url, body] of [
      ['/api/users/register', { email, password: PASSWORD, password_confirmation: PASSWORD }],
      ['/api/users/login', { email, password: PASSWORD }],
      ['/api/users/requestResetPassword', { email }],
    ] as const) {
      const res = await c.post(url, body, from(newIp()));
      expect(res.statusCode, url).toBe(403);
    }
    const enc = await c.post(
      '/api/users/restrictedRegister',
      encryptText(
        'q0Hn7QmZ0nS2b1uV7H3cJm0a9w8E5r2T1y4U6i8O0pA=',
        JSON.stringify({ email, password: PASSWORD, password_confirmation: PASSWORD }),
      ),
      {
        headers: { 'content-type': 'text/plain', 'x-forwarded-for': newIp() },
      },
    );
    expect(enc.statusCode).toBe(201);
  });

  it('clickID, cid and cid4 from register, verify and login are stored where the postbacks read them', async () => {
    const c = new TestClient(t.app);
    const email = uniqueEmail();
    const { user } = await register(c, email, { cid: 'ga-1' });
    const link = linkParams((await mailTo(c, t.app, email))[0]!.text, '/sign-in');
    expect((await c.post('/api/users/verifyUser', { ...link, clickID: 'clk-9', cid4: 'ga4-1' })).statusCode).toBe(200);
    await new TestClient(t.app).post('/api/users/login', { email, password: PASSWORD, cid: 'ga-2' }, from(newIp()));
    const [row] = await t.app.db.query<{ attribution: Record<string, string> }>(
      'select attribution from users where id = $1',
      [user.id],
    );
    expect(row!.attribution).toMatchObject({ clickID: 'clk-9', cid4: 'ga4-1', cid: 'ga-2' });
  });
});
