import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAFF_COOKIE } from '@warren/contract';
import { totpCode } from '../src/lib/totp.js';
import {
  PASSWORD,
  TestClient,
  createTestApp,
  mailTo,
  payWithSandbox,
  registerUser,
  subscriptionOf,
  uniqueEmail,
  type TestApp,
} from './helpers.js';
import { snapshot } from './route-suites.js';

/**
 * The operator console's API (issue 15; contract packages/contract/src/staff.ts): staff sign-in
 * (role + two-factor), sessions (cookie, idle and absolute limits, ended by credential changes),
 * roles (support vs admin, table-driven over every staff route), the append-only audit log, and
 * customer actions whose results the customer sees through their own API.
 */

let t: TestApp;

interface Account {
  id: number;
  email: string;
  secret: string;
  recovery: string[];
  customer: TestClient;
}

/** A member with two-factor on (and a role when given), signed in as a customer in `customer`. */
async function account(role?: 'support' | 'admin', twoFactor = true): Promise<Account> {
  const customer = new TestClient(t.app);
  const email = uniqueEmail(role ?? 'member');
  const { user } = await registerUser(customer, email);
  let secret = '';
  let recovery: string[] = [];
  if (twoFactor) {
    secret = (await customer.post('/api/profile/2fa/setup')).json().data.secret;
    const enabled = await customer.post('/api/profile/2fa/enable', { code: totpCode(secret, Date.now() - 30_000) });
    expect(enabled.statusCode, enabled.body).toBe(200);
    recovery = enabled.json().data.recoveryCodes;
  }
  if (role) await t.app.services.staff.grantRole(email, role);
  return { id: user.id, email, secret, recovery, customer };
}

/** A browser signed in to the console with one of the account's recovery codes. */
async function staffBrowser(a: Account): Promise<TestClient> {
  const browser = new TestClient(t.app);
  const res = await browser.post('/api/staff/session', { email: a.email, password: PASSWORD, code: a.recovery.pop() });
  expect(res.statusCode, res.body).toBe(200);
  return browser;
}

/** A well-formed call of every staff route: the token and role matrices send these (a new route needs one here). */
function samples(customerId: number): Record<string, { url: string; body?: unknown }> {
  const reason = { reason: 'role matrix' };
  const customer = (action: string, body: unknown = reason) => ({
    url: `/api/staff/customers/${customerId}/${action}`,
    body,
  });
  return {
    'DELETE /api/staff/session': { url: '/api/staff/session' },
    'GET /api/staff/me': { url: '/api/staff/me' },
    'GET /api/staff/customers': { url: '/api/staff/customers?q=someone' },
    'GET /api/staff/customers/:id': { url: `/api/staff/customers/${customerId}` },
    'POST /api/staff/customers/:id/grant-days': customer('grant-days', { days: 5, reason: 'role matrix' }),
    'POST /api/staff/customers/:id/refund': customer('refund', { paymentId: 'pay_matrix', reason: 'role matrix' }),
    'POST /api/staff/customers/:id/resend-verification': customer('resend-verification'),
    'POST /api/staff/customers/:id/auto-renew-off': customer('auto-renew-off'),
    'POST /api/staff/customers/:id/sign-out-all': customer('sign-out-all'),
    'POST /api/staff/customers/:id/reset-service-credentials': customer('reset-service-credentials'),
    'POST /api/staff/customers/:id/disable': customer('disable'),
    'POST /api/staff/customers/:id/enable': customer('enable'),
    'POST /api/staff/customers/:id/affiliate-portal': customer('affiliate-portal', {
      enabled: true,
      reason: 'role matrix',
    }),
    'POST /api/staff/customers/:id/delete': customer('delete'),
    'GET /api/staff/audit': { url: `/api/staff/audit?targetUserId=${customerId}` },
    'GET /api/staff/locations': { url: '/api/staff/locations' },
    'POST /api/staff/locations': {
      url: '/api/staff/locations',
      body: {
        slug: 'matrix-loc',
        countryCode: 'FR',
        country: { en: 'France', ru: 'Франция', zh: '法国' },
        city: { en: 'Paris', ru: 'Париж', zh: '巴黎' },
        latitude: 48.8,
        longitude: 2.3,
        premium: true,
      },
    },
    'PATCH /api/staff/locations/:slug': { url: '/api/staff/locations/matrix-loc', body: { premium: false } },
    'POST /api/staff/nodes': {
      url: '/api/staff/nodes',
      body: { location: 'matrix-loc', name: 'matrix-1', endpointHost: 'matrix.example.net' },
    },
    'PATCH /api/staff/nodes/:name': { url: '/api/staff/nodes/matrix-1', body: { enabled: false } },
    'POST /api/staff/nodes/:name/token': { url: '/api/staff/nodes/matrix-1/token', body: {} },
    'GET /api/staff/passkeys': { url: '/api/staff/passkeys' },
    'POST /api/staff/passkeys/register/options': {
      url: '/api/staff/passkeys/register/options',
      body: { password: 'role matrix' },
    },
    'POST /api/staff/passkeys/register/verify': {
      url: '/api/staff/passkeys/register/verify',
      body: {
        response: {
          id: 'AAAA',
          rawId: 'AAAA',
          type: 'public-key',
          response: { clientDataJSON: 'AAAA', attestationObject: 'AAAA' },
          clientExtensionResults: {},
        },
      },
    },
    'POST /api/staff/passkeys/remove': { url: '/api/staff/passkeys/remove', body: { id: 1, password: 'role matrix' } },
    'GET /api/staff/jobs': { url: '/api/staff/jobs?state=failed' },
    'POST /api/staff/jobs/:queue/:id/retry': {
      url: '/api/staff/jobs/billing-renew/00000000-0000-4000-8000-000000000000/retry',
      body: {},
    },
  };
}

const auditRows = async (where = 'true', params: unknown[] = []) =>
  t.app.db.query<{
    id: string;
    action: string;
    actor: string;
    actor_user_id: number | null;
    role: string | null;
    target_user_id: number | null;
    detail: Record<string, unknown>;
  }>(
    `select id::text, action, actor, actor_user_id, role, target_user_id, detail from staff_audit where ${where} order by staff_audit.id`,
    params,
  );

let admin: Account;
let support: Account;
let adminBrowser: TestClient;
let supportBrowser: TestClient;

beforeAll(async () => {
  // More than the default 20 sign-ups from one address: every test here registers its own members.
  t = await createTestApp({ LIMIT_REGISTER_PER_IP: '100' });
  await t.app.ready();
  admin = await account('admin');
  support = await account('support');
  adminBrowser = await staffBrowser(admin);
  supportBrowser = await staffBrowser(support);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('staff sign-in', () => {
  it("needs a role and two-factor; wrong credentials get one generic message; every try on a staff member's account is audited", async () => {
    const member = await account();
    const noTwoFactor = await account('support', false);
    const browser = new TestClient(t.app);
    const generic = 'These credentials do not match our records.';

    // An account without a role, with the right password and code: the same answer as a wrong password.
    const noRole = await browser.post('/api/staff/session', {
      email: member.email,
      password: PASSWORD,
      code: member.recovery[0],
    });
    expect(noRole.statusCode).toBe(422);
    expect(noRole.json().message).toBe(generic);
    const wrongPassword = await browser.post('/api/staff/session', {
      email: admin.email,
      password: 'not the password',
      code: admin.recovery[0],
    });
    expect(wrongPassword.statusCode).toBe(422);
    expect(wrongPassword.json().message).toBe(generic);
    const unknown = await browser.post('/api/staff/session', {
      email: uniqueEmail('nobody'),
      password: PASSWORD,
      code: '123456',
    });
    expect(unknown.json().message).toBe(generic);
    const wrongCode = await browser.post('/api/staff/session', {
      email: admin.email,
      password: PASSWORD,
      code: '000000',
    });
    expect(wrongCode.statusCode).toBe(422);
    expect(wrongCode.json().message).toBe(generic);

    // A role holder without two-factor is told to turn it on.
    const off = await browser.post('/api/staff/session', {
      email: noTwoFactor.email,
      password: PASSWORD,
      code: '123456',
    });
    expect(off.statusCode).toBe(403);
    expect(off.json().errors.code[0]).toMatch(/two-factor/i);
    expect(browser.cookies[STAFF_COOKIE]).toBeUndefined();

    const failures = await auditRows(`action = 'sign-in-failed' and (actor = $1 or actor = $2 or actor = $3)`, [
      member.email,
      admin.email,
      noTwoFactor.email,
    ]);
    // The account without a role is no staff member: its try is no staff event (issue 20).
    expect(failures.map((r) => r.detail.why).sort()).toEqual(['code', 'password', 'two-factor-off']);
  });

  it('a TOTP code signs in once: the same code again is refused; the cookie is HttpOnly, SameSite=Strict, Path=/api/staff', async () => {
    const a = await account('support');
    const code = totpCode(a.secret, Date.now());
    const first = new TestClient(t.app);
    const ok = await first.post('/api/staff/session', { email: a.email, password: PASSWORD, code });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data).toMatchObject({ email: a.email, role: 'support' });
    const cookie = (
      ok.cookies as { name: string; httpOnly?: boolean; sameSite?: string; path?: string; secure?: boolean }[]
    ).find((c) => c.name === STAFF_COOKIE)!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/staff' });
    expect((await first.get('/api/staff/me')).json().data.email).toBe(a.email);

    const replay = await new TestClient(t.app).post('/api/staff/session', { email: a.email, password: PASSWORD, code });
    expect(replay.statusCode).toBe(422);
    expect((await auditRows(`action = 'sign-in' and actor = $1`, [a.email])).length).toBe(1);
  });

  it('a recovery code signs in once, is used up for the customer sign-in too, and the audit says a recovery code was used', async () => {
    const a = await account('support');
    const code = a.recovery[0]!;
    // Typed as the customer sees it, in capitals with the dash: the same code.
    const ok = await new TestClient(t.app).post('/api/staff/session', {
      email: a.email,
      password: PASSWORD,
      code: code.toUpperCase(),
    });
    expect(ok.statusCode, ok.body).toBe(200);
    const [signIn] = await auditRows(`action = 'sign-in' and actor = $1`, [a.email]);
    expect(signIn!.detail).toMatchObject({ secondFactor: 'recovery', recoveryCodesLeft: a.recovery.length - 1 });
    // Used: neither the console nor the customer sign-in takes it again.
    const again = await new TestClient(t.app).post('/api/staff/session', { email: a.email, password: PASSWORD, code });
    expect(again.statusCode).toBe(422);
    const customer = await new TestClient(t.app).post('/api/users/login', {
      email: a.email,
      password: PASSWORD,
      otp: code,
    });
    expect(customer.statusCode).toBe(422);
    // The owner is told by mail, as at the customer sign-in.
    expect((await mailTo(a.customer, t.app, a.email)).some((m) => /recovery code/i.test(m.subject))).toBe(true);
    // A TOTP sign-in says so too.
    const totp = await new TestClient(t.app).post('/api/staff/session', {
      email: a.email,
      password: PASSWORD,
      code: totpCode(a.secret, Date.now()),
    });
    expect(totp.statusCode, totp.body).toBe(200);
    expect(
      (await auditRows(`action = 'sign-in' and actor = $1`, [a.email])).map((r) => r.detail.secondFactor).sort(),
    ).toEqual(['recovery', 'totp']);
  });

  it('30 parallel wrong codes: at most the second-factor budget is evaluated, the rest are refused before', async () => {
    const a = await account('admin');
    const browser = new TestClient(t.app);
    await browser.primeXsrf();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        browser.post('/api/staff/session', { email: a.email, password: PASSWORD, code: String(100000 + i) }),
      ),
    );
    const evaluated = await auditRows(`action = 'sign-in-failed' and actor = $1`, [a.email]);
    expect(evaluated.length).toBeLessThanOrEqual(10);
    expect(evaluated.length).toBeGreaterThan(0);
    expect(answers.filter((r) => r.statusCode === 429).length).toBe(30 - evaluated.length);
    expect(answers.every((r) => r.statusCode === 422 || r.statusCode === 429)).toBe(true);
  });
});

describe('staff sessions', () => {
  it('a customer token is no staff credential, and the staff cookie is no customer one', async () => {
    const member = await account();
    const calls = samples(member.id);
    for (const r of t.app.staffRoutes.filter((x) => x.role !== null)) {
      const call = calls[`${r.method} ${r.url}`]!;
      const res = await member.customer.request({
        method: r.method as 'GET',
        url: call.url,
        payload: r.method === 'GET' ? undefined : (call.body ?? {}),
      });
      expect(res.statusCode, `${r.method} ${r.url}: ${res.body}`).toBe(401);
    }
    // The staff browser holds no bearer token: customer routes do not know it.
    expect((await adminBrowser.get('/api/users/info/get')).statusCode).toBe(401);
    expect((await adminBrowser.get('/api/profile')).statusCode).toBe(401);
    // Not even the admin's own customer token works where only the staff cookie counts.
    expect((await admin.customer.get('/api/staff/me')).statusCode).toBe(401);
  });

  it('ends after 15 idle minutes and after 8 hours whatever happens (clock moved in the database)', async () => {
    const a = await account('support');
    const idle = await staffBrowser(a);
    expect((await idle.get('/api/staff/me')).statusCode).toBe(200);
    await t.app.db.query(`update staff_sessions set last_used_at = now() - interval '16 minutes' where user_id = $1`, [
      a.id,
    ]);
    expect((await idle.get('/api/staff/me')).statusCode).toBe(401);

    const old = await staffBrowser(a);
    await t.app.db.query(
      `update staff_sessions set created_at = now() - interval '8 hours 1 minute', last_used_at = now() where user_id = $1`,
      [a.id],
    );
    expect((await old.get('/api/staff/me')).statusCode).toBe(401);

    const fresh = await staffBrowser(a);
    await t.app.db.query(`update staff_sessions set last_used_at = now() - interval '14 minutes' where user_id = $1`, [
      a.id,
    ]);
    const me = await fresh.get('/api/staff/me');
    expect(me.statusCode).toBe(200);
    expect(new Date(me.json().data.expiresAt).getTime()).toBeGreaterThan(Date.now() + 14 * 60_000);
  });

  it('signing out, revoking the role, a password change, two-factor off and sign-out-everywhere end staff sessions', async () => {
    const a = await account('admin');
    const out = await staffBrowser(a);
    expect((await out.request({ method: 'DELETE', url: '/api/staff/session' })).statusCode).toBe(200);
    expect((await out.get('/api/staff/me')).statusCode).toBe(401);

    const revoked = await staffBrowser(a);
    await t.app.services.staff.revokeRole(a.email);
    expect((await revoked.get('/api/staff/me')).statusCode).toBe(401);
    await t.app.services.staff.grantRole(a.email, 'admin');

    const password = await staffBrowser(a);
    const changed = await a.customer.post('/api/profile/password', {
      currentPassword: PASSWORD,
      password: PASSWORD,
      password_confirmation: PASSWORD,
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await password.get('/api/staff/me')).statusCode).toBe(401);

    const everywhere = await staffBrowser(a);
    expect((await a.customer.post('/api/profile/sessions/revokeOthers')).statusCode).toBe(200);
    expect((await everywhere.get('/api/staff/me')).statusCode).toBe(401);

    const twoFactor = await staffBrowser(a);
    const off = await a.customer.post('/api/profile/2fa/disable', { password: PASSWORD, code: a.recovery.pop() });
    expect(off.statusCode, off.body).toBe(200);
    expect((await twoFactor.get('/api/staff/me')).statusCode).toBe(401);
  });

  it('in production the cookie is Secure too, and the session is bound to the __Host- XSRF key', async () => {
    const prod = await createTestApp({
      NODE_ENV: 'production',
      APP_SECRET: 'p'.repeat(40),
      ALLOW_NO_CAPTCHA_IN_PRODUCTION: 'true',
    });
    try {
      await prod.app.ready();
      const customer = new TestClient(prod.app);
      const email = uniqueEmail('prod-admin');
      await registerUser(customer, email);
      const secret = (await customer.post('/api/profile/2fa/setup')).json().data.secret as string;
      const codes = (
        await customer.post('/api/profile/2fa/enable', { code: totpCode(secret, Date.now() - 30_000) })
      ).json().data.recoveryCodes as string[];
      await prod.app.services.staff.grantRole(email, 'admin');
      const browser = new TestClient(prod.app);
      const res = await browser.post('/api/staff/session', { email, password: PASSWORD, code: codes[0] });
      expect(res.statusCode, res.body).toBe(200);
      const cookie = (
        res.cookies as { name: string; secure?: boolean; httpOnly?: boolean; sameSite?: string; path?: string }[]
      ).find((c) => c.name === STAFF_COOKIE);
      expect(cookie).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Strict', path: '/api/staff' });
      expect(browser.cookies['__Host-warren-xsrf-key']).toBeDefined();
      expect(
        (
          await browser.post(
            `/api/staff/customers/${(await customer.get('/api/users/info/get')).json().data.id}/auto-renew-off`,
            {},
          )
        ).statusCode,
      ).toBe(200);
    } finally {
      await prod.close();
    }
  });

  it('a state-changing call needs the XSRF key the session signed in with', async () => {
    const a = await account('support');
    const browser = await staffBrowser(a);
    const member = await account();
    // Another browser's valid XSRF pair, with this session's cookie.
    const other = new TestClient(t.app);
    await other.primeXsrf();
    const res = await other.post(
      `/api/staff/customers/${member.id}/auto-renew-off`,
      {},
      { cookies: { [STAFF_COOKIE]: browser.cookies[STAFF_COOKIE]! } },
    );
    expect(res.statusCode).toBe(419);
    expect((await browser.post(`/api/staff/customers/${member.id}/auto-renew-off`, {})).statusCode).toBe(200);
  });
});

describe('roles', () => {
  it('every staff route has a well-formed sample call, and support on each admin route gets 403 with nothing changed', async () => {
    const listed = new Set(t.app.staffRoutes.map((r) => `${r.method} ${r.url}`));
    const registered = t.app.routeList
      .filter((r) => r.url.startsWith('/api/staff') && r.method !== 'HEAD')
      .map((r) => `${r.method} ${r.url}`);
    expect(
      registered.filter((k) => !listed.has(k)),
      'staff routes outside the role table',
    ).toEqual([]);
    const member = await account();
    const calls = samples(member.id);
    const missing = t.app.staffRoutes
      .filter((r) => r.role !== null && !calls[`${r.method} ${r.url}`])
      .map((r) => `${r.method} ${r.url}`);
    expect(missing, 'add a well-formed sample call to samples() for these routes').toEqual([]);
    const adminRoutes = t.app.staffRoutes.filter((r) => r.role === 'admin');
    expect(adminRoutes.length).toBeGreaterThanOrEqual(11);

    const before = await snapshot(t.app, ['auth_tokens', 'staff_sessions']);
    for (const r of adminRoutes) {
      const call = calls[`${r.method} ${r.url}`]!;
      const res = await supportBrowser.request({ method: r.method as 'POST', url: call.url, payload: call.body ?? {} });
      expect(res.statusCode, `${r.method} ${r.url}: ${res.body}`).toBe(403);
    }
    expect(await snapshot(t.app, ['auth_tokens', 'staff_sessions'])).toEqual(before);
  });
});

describe('audit log', () => {
  it('refuses UPDATE, DELETE and TRUNCATE', async () => {
    expect((await auditRows()).length).toBeGreaterThan(0);
    await expect(t.app.db.query(`update staff_audit set actor = 'someone else'`)).rejects.toThrow(/append-only/);
    await expect(t.app.db.query(`delete from staff_audit`)).rejects.toThrow(/append-only/);
    await expect(t.app.db.query(`truncate staff_audit`)).rejects.toThrow(/append-only/);
  });

  it('lists newest first, by target, a page at a time', async () => {
    const member = await account();
    for (let i = 0; i < 3; i++)
      expect((await supportBrowser.get(`/api/staff/customers/${member.id}`)).statusCode).toBe(200);
    const page = (await supportBrowser.get(`/api/staff/audit?targetUserId=${member.id}`)).json().data;
    expect(page.items.map((e: { action: string }) => e.action)).toEqual([
      'customer-view',
      'customer-view',
      'customer-view',
    ]);
    expect(page.items[0]).toMatchObject({
      actor: support.email,
      role: 'support',
      targetUserId: member.id,
      target: member.email,
    });
    expect(Number(page.items[0].id)).toBeGreaterThan(Number(page.items[2].id));
    expect(page.nextCursor).toBeNull();
    // More rows than a page (appending is what the log allows).
    for (let i = 0; i < 55; i++)
      await t.app.db.query(`insert into staff_audit (actor, action) values ('filler', 'customer-view')`);
    const all = (await supportBrowser.get('/api/staff/audit')).json().data;
    expect(all.items.length).toBe(50);
    const next = (await supportBrowser.get(`/api/staff/audit?cursor=${all.nextCursor}`)).json().data;
    expect(Number(next.items[0].id)).toBeLessThan(Number(all.items[49].id));
  });
});

describe('customer view and actions', () => {
  it('finds a customer by email, part of it, or id; the view shows no addresses and no secrets', async () => {
    const member = await account();
    await payWithSandbox(t.app, member.customer);
    const byEmail = (await supportBrowser.get(`/api/staff/customers?q=${encodeURIComponent(member.email)}`)).json().data
      .items;
    expect(byEmail[0].id).toBe(member.id);
    const byId = (await supportBrowser.get(`/api/staff/customers?q=${member.id}`)).json().data.items;
    expect(byId[0].email).toBe(member.email);
    const part = (
      await supportBrowser.get(`/api/staff/customers?q=${encodeURIComponent(member.email.slice(0, 12))}`)
    ).json().data.items;
    expect(part.map((c: { id: number }) => c.id)).toContain(member.id);
    expect((await supportBrowser.get('/api/staff/customers?q=%25')).json().data.items.length).toBe(0);

    // The index is asked for q's rarest trigrams only (email-search.ts): a row holding those but not q is not found.
    const stamp = Date.now().toString(36);
    const wanted = `zq${stamp}abc123@search.invalid`;
    await registerUser(new TestClient(t.app), wanted);
    await registerUser(new TestClient(t.app), `zq${stamp}xyzc123abc@search.invalid`);
    for (const q of [`zq${stamp}abc123`, `ZQ${stamp.toUpperCase()}ABC123@`, wanted]) {
      const found = (await supportBrowser.get(`/api/staff/customers?q=${encodeURIComponent(q)}`)).json().data.items;
      expect(
        found.map((c: { email: string }) => c.email),
        q,
      ).toEqual([wanted]);
    }
    expect((await supportBrowser.get(`/api/staff/customers?q=zq${stamp}`)).json().data.items).toHaveLength(2);
    expect((await supportBrowser.get(`/api/staff/customers?q=zq${stamp}_`)).json().data.items).toHaveLength(0);

    await t.app.settle(); // mails go out in the background
    const view = await supportBrowser.get(`/api/staff/customers/${member.id}`);
    expect(view.statusCode, view.body).toBe(200);
    const c = view.json().data;
    expect(c.account).toMatchObject({ id: member.id, email: member.email, twoFactorEnabled: true, staffRole: null });
    expect(c.subscription.status).toBe('active');
    expect(c.payments[0]).toMatchObject({
      kind: 'purchase',
      status: 'succeeded',
      staffRefundable: true,
      insideWindow: true,
    });
    expect(c.sessions.active).toBeGreaterThan(0);
    expect(c.mails.map((m: { kind: string }) => m.kind)).toContain('verify');
    expect(view.body).not.toMatch(/password|totp_secret|token_hash|127\.0\.0\.1/i);
  });

  it('unknown ids are 404', async () => {
    expect((await supportBrowser.get('/api/staff/customers/999999')).statusCode).toBe(404);
    expect(
      (await supportBrowser.post('/api/staff/customers/999999/grant-days', { days: 3, reason: 'goodwill' })).statusCode,
    ).toBe(404);
    expect(
      (await adminBrowser.post('/api/staff/customers/999999/refund', { paymentId: 'pay_x', reason: 'goodwill' }))
        .statusCode,
    ).toBe(404);
    expect(
      (
        await adminBrowser.request({
          method: 'PATCH',
          url: '/api/staff/locations/no-such-place',
          payload: { premium: true },
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (
        await adminBrowser.request({
          method: 'PATCH',
          url: '/api/staff/nodes/no-such-node',
          payload: { enabled: false },
        })
      ).statusCode,
    ).toBe(404);
    expect((await adminBrowser.post('/api/staff/nodes/no-such-node/token', {})).statusCode).toBe(404);
    expect(
      (await adminBrowser.post('/api/staff/jobs/billing-renew/00000000-0000-4000-8000-000000000000/retry', {}))
        .statusCode,
    ).toBe(404);
  });

  it('grant days: the customer sees the days and the grant; one audit row with actor, target and reason', async () => {
    const member = await account();
    const before = (await auditRows()).length;
    const res = await supportBrowser.post(`/api/staff/customers/${member.id}/grant-days`, {
      days: 10,
      reason: 'outage compensation',
    });
    expect(res.statusCode, res.body).toBe(200);
    const rows = (await auditRows()).slice(before);
    expect(rows).toEqual([
      expect.objectContaining({
        action: 'grant-days',
        actor: support.email,
        actor_user_id: support.id,
        role: 'support',
        target_user_id: member.id,
      }),
    ]);
    expect(rows[0]!.detail).toMatchObject({ days: 10, reason: 'outage compensation' });

    const sub = await subscriptionOf(member.customer);
    const days = (new Date(sub.expiresAt!).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(9.9);
    expect(days).toBeLessThan(10.1);
    const history = (await member.customer.get('/api/billing/payments')).json().data.items;
    expect(history[0]).toMatchObject({ kind: 'grant', status: 'succeeded', amountMinor: 0 });
    // The customer is told in words, never thanked for a payment (issue 22).
    const mails = await mailTo(member.customer, t.app, member.email);
    expect(mails.filter((m) => /was added to your/.test(m.subject))).toHaveLength(1);
    expect(mails.some((m) => /receipt/i.test(m.subject) || /thank you for your payment/i.test(m.text))).toBe(false);
    // A grant moved no money: the console offers no refund for it, and the API refuses one.
    const view = (await adminBrowser.get(`/api/staff/customers/${member.id}`)).json().data;
    expect(view.payments.find((p: { kind: string }) => p.kind === 'grant')).toMatchObject({ staffRefundable: false });
    const refundGrant = await adminBrowser.post(`/api/staff/customers/${member.id}/refund`, {
      paymentId: history[0].paymentId,
      reason: 'undo',
    });
    expect(refundGrant.statusCode).toBe(422);
    expect(refundGrant.json().errors.paymentId[0]).toContain('nothing to refund');
    expect((await subscriptionOf(member.customer)).expiresAt).toBe(sub.expiresAt);
    // Days on top of days.
    await supportBrowser.post(`/api/staff/customers/${member.id}/grant-days`, { days: 5, reason: 'more compensation' });
    const later = await subscriptionOf(member.customer);
    expect(Math.round((new Date(later.expiresAt!).getTime() - new Date(sub.expiresAt!).getTime()) / 86_400_000)).toBe(
      5,
    );
    // Out of range and without a reason: refused, nothing written.
    const count = (await auditRows()).length;
    expect(
      (await supportBrowser.post(`/api/staff/customers/${member.id}/grant-days`, { days: 0, reason: 'zero' }))
        .statusCode,
    ).toBe(422);
    expect(
      (await supportBrowser.post(`/api/staff/customers/${member.id}/grant-days`, { days: 3651, reason: 'many' }))
        .statusCode,
    ).toBe(422);
    expect((await supportBrowser.post(`/api/staff/customers/${member.id}/grant-days`, { days: 3 })).statusCode).toBe(
      422,
    );
    expect((await auditRows()).length).toBe(count);
  });

  it('refund: once when asked in parallel, visible to the customer; outside the window only when confirmed', async () => {
    const member = await account();
    await payWithSandbox(t.app, member.customer);
    const paymentId = (await member.customer.get('/api/billing/payments')).json().data.items[0].paymentId as string;
    const before = (await auditRows(`action = 'refund'`)).length;
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        adminBrowser.post(`/api/staff/customers/${member.id}/refund`, { paymentId, reason: 'customer asked by mail' }),
      ),
    );
    expect(answers.filter((r) => r.statusCode === 200).length, answers.map((r) => r.body).join('\n')).toBe(1);
    expect(answers.every((r) => r.statusCode === 200 || r.statusCode === 409)).toBe(true);
    expect((await auditRows(`action = 'refund'`)).length).toBe(before + 1);
    const history = (await member.customer.get('/api/billing/payments')).json().data.items;
    expect(history.map((i: { kind: string }) => i.kind)).toContain('refund');
    expect((await subscriptionOf(member.customer)).tariffKey).toBe('free-plan');
    // One refund mail for the one refund (issue 22), saying which payment.
    const refundMails = (await mailTo(member.customer, t.app, member.email)).filter((m) =>
      /refund was made/.test(m.subject),
    );
    expect(refundMails).toHaveLength(1);
    expect(refundMails[0]!.text).toContain(paymentId);

    // Outside the window: refused unless confirmed.
    const late = await account();
    await payWithSandbox(t.app, late.customer);
    const latePayment = (await late.customer.get('/api/billing/payments')).json().data.items[0].paymentId as string;
    await t.app.db.query(`update payments set paid_at = now() - interval '40 days' where public_id = $1`, [
      latePayment,
    ]);
    const refused = await adminBrowser.post(`/api/staff/customers/${late.id}/refund`, {
      paymentId: latePayment,
      reason: 'late ask',
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().errors.outsideWindow).toBeDefined();
    const forced = await adminBrowser.post(`/api/staff/customers/${late.id}/refund`, {
      paymentId: latePayment,
      reason: 'late ask, approved',
      outsideWindow: true,
    });
    expect(forced.statusCode, forced.body).toBe(200);
    expect((await auditRows(`action = 'refund' and target_user_id = $1`, [late.id]))[0]!.detail).toMatchObject({
      outsideWindow: true,
      reason: 'late ask, approved',
    });
    // Another customer's payment through this customer's id: not found.
    const third = await account();
    await payWithSandbox(t.app, third.customer);
    const thirdPayment = (await third.customer.get('/api/billing/payments')).json().data.items[0].paymentId as string;
    expect(
      (
        await adminBrowser.post(`/api/staff/customers/${member.id}/refund`, {
          paymentId: thirdPayment,
          reason: 'wrong customer',
        })
      ).statusCode,
    ).toBe(404);
  });

  it('each other action writes exactly one audit row and does what it says', async () => {
    const member = await account();
    const act = async (browser: TestClient, action: string, body: Record<string, unknown>) => {
      const before = (await auditRows()).length;
      const res = await browser.post(`/api/staff/customers/${member.id}/${action}`, body);
      expect(res.statusCode, `${action}: ${res.body}`).toBe(200);
      const rows = (await auditRows()).slice(before);
      expect(rows.length, action).toBe(1);
      expect(rows[0]).toMatchObject({ action, target_user_id: member.id });
      if (body.reason) expect(rows[0]!.detail.reason).toBe(body.reason);
      return res.json().data.customer;
    };
    await act(supportBrowser, 'auto-renew-off', {});
    expect((await member.customer.get('/api/billing/subscription')).json().data.autoRenew).toBe(false);
    await act(supportBrowser, 'resend-verification', { reason: 'customer lost the mail' });
    await t.app.settle(); // mails go out in the background
    const unverified = (await supportBrowser.get(`/api/staff/customers/${member.id}`)).json().data;
    expect(unverified.mails.filter((m: { kind: string }) => m.kind === 'verify').length).toBe(2);
    await member.customer.get('/api/setup/services/get'); // makes the OpenVPN/SOCKS5 credentials
    const creds = (
      await t.app.db.query<{ verifier: string }>(`select verifier from service_credentials where user_id = $1`, [
        member.id,
      ])
    )[0];
    expect(creds).toBeDefined();
    const reset = await act(adminBrowser, 'reset-service-credentials', { reason: 'leaked in a forum' });
    expect(reset.services).toMatchObject({ present: true });
    expect(JSON.stringify(reset)).not.toMatch(/password/i);
    const after = (
      await t.app.db.query<{ verifier: string }>(`select verifier from service_credentials where user_id = $1`, [
        member.id,
      ])
    )[0]!;
    expect(after.verifier).not.toBe(creds!.verifier);
    await act(supportBrowser, 'sign-out-all', { reason: 'lost phone' });
    // The affiliate-portal flag (issue 23: the CLI was the only tool): admins only, the customer's menu follows.
    const portalUrl = `/api/staff/customers/${member.id}/affiliate-portal`;
    expect((await supportBrowser.post(portalUrl, { enabled: true, reason: 'partner deal' })).statusCode).toBe(403);
    expect((await adminBrowser.post(portalUrl, { enabled: true })).statusCode).toBe(422);
    expect((await adminBrowser.post(portalUrl, { enabled: 'yes', reason: 'partner deal' })).statusCode).toBe(422);
    const on = await act(adminBrowser, 'affiliate-portal', { enabled: true, reason: 'partner deal' });
    expect(on.account.affiliatePortal).toBe(true);
    const [flag] = await t.app.db.query<{ on: boolean }>(
      'select is_post_affiliate_available as on from users where id = $1',
      [member.id],
    );
    expect(flag!.on).toBe(true);
    const again = await adminBrowser.post(portalUrl, { enabled: true, reason: 'twice' });
    expect(again.statusCode, again.body).toBe(422);
    expect(again.json().errors.enabled[0]).toMatch(/on already/);
    expect(
      (await adminBrowser.post(`/api/staff/customers/999999999/affiliate-portal`, { enabled: true, reason: 'nobody' }))
        .statusCode,
    ).toBe(404);
    expect(
      (await act(adminBrowser, 'affiliate-portal', { enabled: false, reason: 'deal ended' })).account.affiliatePortal,
    ).toBe(false);
    // Two admins at once: one switch, one refusal, one audit row (the flag is read and set in one statement).
    const rowsBefore = (await auditRows("action = 'affiliate-portal'")).length;
    const both = await Promise.all([
      adminBrowser.post(portalUrl, { enabled: true, reason: 'first admin' }),
      adminBrowser.post(portalUrl, { enabled: true, reason: 'second admin' }),
    ]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 422]);
    expect((await auditRows("action = 'affiliate-portal'")).length).toBe(rowsBefore + 1);
    expect((await member.customer.get('/api/users/info/get')).statusCode).toBe(401);
    await act(adminBrowser, 'disable', { reason: 'chargeback fraud' });
    const login = await new TestClient(t.app).post('/api/users/login', {
      email: member.email,
      password: PASSWORD,
      otp: member.recovery.pop(),
    });
    expect(login.statusCode).toBe(403);
    // A grant (a payment) does not re-activate a disabled account.
    const granted = await act(supportBrowser, 'grant-days', { days: 1, reason: 'goodwill while disabled' });
    expect(granted.account.status).toBe('Suspended');
    const enabled = await act(adminBrowser, 'enable', { reason: 'resolved' });
    expect(enabled.account.status).not.toBe('Suspended');
    const deleted = await act(adminBrowser, 'delete', { reason: 'GDPR erasure request' });
    expect(deleted).toBeNull();
    expect((await supportBrowser.get(`/api/staff/customers/${member.id}`)).statusCode).toBe(404);
    const gone = await new TestClient(t.app).post('/api/users/login', { email: member.email, password: PASSWORD });
    expect(gone.statusCode).toBe(422);
  });
});

describe('reset credentials and the stealth credentials (issue 21)', () => {
  it('rotates the stealth credentials too: the old subscription URL answers 404, the new one works; a customer with none of either gets 422', async () => {
    const member = await account();
    await payWithSandbox(t.app, member.customer);
    const before = (await member.customer.get('/api/setup/stealth/get')).json().data as {
      subscriptionUrl: string;
      links: { url: string }[];
    };
    const oldPath = new URL(before.subscriptionUrl).pathname;
    expect((await t.app.inject({ method: 'GET', url: oldPath })).statusCode).toBe(200);
    const res = await adminBrowser.post(`/api/staff/customers/${member.id}/reset-service-credentials`, {
      reason: 'link leaked',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).not.toContain(oldPath.split('/').pop());
    const [row] = await auditRows(`action = 'reset-service-credentials' and target_user_id = $1`, [member.id]);
    expect(row!.detail).toMatchObject({ reason: 'link leaked', services: false, stealth: true });
    expect((await t.app.inject({ method: 'GET', url: oldPath })).statusCode).toBe(404);
    const oldSecret = oldPath.split('/').pop()!;
    for (const url of [
      `/api/s%75b/${oldSecret}`,
      `/api/sub/${oldSecret}?format=clash`,
      `/api/sub/${oldSecret}?format=singbox`,
    ])
      expect((await t.app.inject({ method: 'GET', url })).statusCode, url).toBe(404);
    const after = (await member.customer.get('/api/setup/stealth/get')).json().data as typeof before;
    expect(after.subscriptionUrl).not.toBe(before.subscriptionUrl);
    expect((await t.app.inject({ method: 'GET', url: new URL(after.subscriptionUrl).pathname })).statusCode).toBe(200);

    // Attack: the customer's own reset and the console's at once: both answer, one credential row, the URL shown afterwards works.
    const [mine, theirs] = await Promise.all([
      member.customer.post('/api/setup/stealth/reset'),
      adminBrowser.post(`/api/staff/customers/${member.id}/reset-service-credentials`, { reason: 'twice at once' }),
    ]);
    expect([mine.statusCode, theirs.statusCode]).toEqual([200, 200]);
    expect(await t.app.db.query('select 1 from stealth_credentials where user_id = $1', [member.id])).toHaveLength(1);
    const now = (await member.customer.get('/api/setup/stealth/get')).json().data as typeof before;
    expect((await t.app.inject({ method: 'GET', url: new URL(now.subscriptionUrl).pathname })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: new URL(after.subscriptionUrl).pathname })).statusCode).toBe(404);

    // Neither OpenVPN/SOCKS5 nor stealth credentials: nothing to reset, nothing audited.
    const fresh = await account();
    const auditBefore = (await auditRows(`action = 'reset-service-credentials' and target_user_id = $1`, [fresh.id]))
      .length;
    const none = await adminBrowser.post(`/api/staff/customers/${fresh.id}/reset-service-credentials`, {
      reason: 'nothing there',
    });
    expect(none.statusCode).toBe(422);
    expect(none.json().errors.services[0]).toMatch(/no OpenVPN\/SOCKS5 or stealth credentials/);
    expect((await auditRows(`action = 'reset-service-credentials' and target_user_id = $1`, [fresh.id])).length).toBe(
      auditBefore,
    );
  });
});

describe('locations, nodes and jobs', () => {
  it('admin adds a location and a node (token once), patches them, issues a new token; the old one stops working', async () => {
    const loc = await adminBrowser.post('/api/staff/locations', {
      slug: 'test-city',
      countryCode: 'DE',
      country: { en: 'Germany', ru: 'Германия', zh: '德国' },
      city: { en: 'Testburg', ru: 'Тестбург', zh: '测试' },
      latitude: 50,
      longitude: 8,
      premium: false,
    });
    expect(loc.statusCode, loc.body).toBe(201);
    expect(loc.json().data).toMatchObject({ slug: 'test-city', premium: false, visible: true, nodes: [] });
    const dup = await adminBrowser.post('/api/staff/locations', {
      slug: 'test-city',
      countryCode: 'DE',
      country: { en: 'a', ru: 'b', zh: 'c' },
      city: { en: 'a', ru: 'b', zh: 'c' },
      latitude: 1,
      longitude: 1,
      premium: false,
    });
    expect(dup.statusCode).toBe(409);
    // The admin functions' own errors, typed where they are thrown: the field they are about, no message matching.
    expect(dup.json().errors).toEqual({ slug: ['A location with this slug exists already.'] });

    const node = await adminBrowser.post('/api/staff/nodes', {
      location: 'test-city',
      name: 'test-city-1',
      endpointHost: 'vpn.example.net',
    });
    expect(node.statusCode, node.body).toBe(201);
    const again = await adminBrowser.post('/api/staff/nodes', {
      location: 'test-city',
      name: 'test-city-1',
      endpointHost: 'vpn.example.net',
    });
    expect(again.statusCode, again.body).toBe(409);
    expect(again.json().errors).toEqual({ name: ['A node with this name exists already.'] });
    const first = node.json().data.token as string;
    expect(first).toMatch(/^wn_/);
    expect(node.json().data.node).toMatchObject({
      name: 'test-city-1',
      enabled: true,
      hasToken: true,
      lastSeenAt: null,
      online: false,
    });
    const report = (token: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/nodes/report',
        headers: { authorization: `Bearer ${token}` },
        payload: { load: 12, activePeers: 3, peers: [], agentVersion: '1.2.3', lastApplyError: 'wg: device busy' },
      });
    expect((await report(first)).statusCode).toBe(200);
    const listed = (await supportBrowser.get('/api/staff/locations'))
      .json()
      .data.items.find((l: { slug: string }) => l.slug === 'test-city');
    expect(listed.nodes[0]).toMatchObject({
      online: true,
      load: 12,
      activePeers: 3,
      agentVersion: '1.2.3',
      lastApplyError: 'wg: device busy',
    });
    expect(listed.nodes[0].stealth).toBeNull();
    // A node with a stealth core (issue 21): the console shows what its agent reports of it; a report without one clears it.
    const certNotAfter = Date.parse('2031-05-01T00:00:00Z');
    const stealthReport = await t.app.inject({
      method: 'POST',
      url: '/api/nodes/report',
      headers: { authorization: `Bearer ${first}` },
      payload: {
        load: 12,
        activePeers: 3,
        peers: [],
        stealth: {
          host: 'fra.example.net',
          port: 443,
          wsPath: '/abcdef',
          up: false,
          version: '4.34.0',
          users: 7,
          certNotAfter,
        },
      },
    });
    expect(stealthReport.statusCode, stealthReport.body).toBe(200);
    const withStealth = (await supportBrowser.get('/api/staff/locations'))
      .json()
      .data.items.find((l: { slug: string }) => l.slug === 'test-city');
    expect(withStealth.nodes[0].stealth).toEqual({
      up: false,
      version: '4.34.0',
      users: 7,
      host: 'fra.example.net',
      port: 443,
      certNotAfter: '2031-05-01T00:00:00.000Z',
    });
    expect(JSON.stringify(withStealth)).not.toContain('/abcdef'); // the WebSocket path is in customers' links, not the console
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/nodes/report',
          headers: { authorization: `Bearer ${first}` },
          payload: { load: 12, activePeers: 3, peers: [] },
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (await supportBrowser.get('/api/staff/locations'))
        .json()
        .data.items.find((l: { slug: string }) => l.slug === 'test-city').nodes[0].stealth,
    ).toBeNull();
    // An old agent's report (no new fields) keeps working and keeps what was reported.
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/nodes/report',
          headers: { authorization: `Bearer ${first}` },
          payload: { load: 1, activePeers: 0, peers: [] },
        })
      ).statusCode,
    ).toBe(200);

    const patched = await adminBrowser.request({
      method: 'PATCH',
      url: '/api/staff/locations/test-city',
      payload: { premium: true, visible: false },
    });
    expect(patched.json().data).toMatchObject({ premium: true, visible: false });
    const off = await adminBrowser.request({
      method: 'PATCH',
      url: '/api/staff/locations/test-city',
      payload: { enabled: false },
    });
    expect(off.json().data).toMatchObject({ enabled: false });
    const nodeOn = await adminBrowser.request({
      method: 'PATCH',
      url: '/api/staff/nodes/test-city-1',
      payload: { enabled: true },
    });
    expect(nodeOn.json().data.enabled).toBe(true);

    const second = await adminBrowser.post('/api/staff/nodes/test-city-1/token', {});
    expect(second.statusCode).toBe(200);
    expect((await report(first)).statusCode).toBe(401);
    expect((await report(second.json().data.token)).statusCode).toBe(200);
    // Tokens never reach the audit log.
    const log = JSON.stringify(await auditRows(`action like 'node-%' or action like 'location-%'`));
    expect(log).not.toContain(first);
    expect(log).not.toContain(second.json().data.token);
    expect(
      (await auditRows(`action in ('location-add', 'location-update', 'node-add', 'node-update', 'node-token')`)).map(
        (r) => r.action,
      ),
    ).toEqual(['location-add', 'node-add', 'location-update', 'location-update', 'node-update', 'node-token']);
  });

  it('jobs: both roles list, only admin retries, and only a failed job', async () => {
    const list = await supportBrowser.get('/api/staff/jobs');
    expect(list.statusCode, list.body).toBe(200);
    expect(Array.isArray(list.json().data.items)).toBe(true);
    expect((await supportBrowser.get('/api/staff/jobs?state=failed')).statusCode).toBe(200);

    // A failed job (deferred, so no worker takes it first, then failed by hand).
    const boss = await t.app.services.jobs.boss();
    const id = (await boss.send(
      'billing-renew',
      { userId: 999_999, asOf: new Date().toISOString() },
      { retryLimit: 0, startAfter: 3600 },
    ))!;
    await boss.fail('billing-renew', id, { message: 'card declined' });
    const failed = (await supportBrowser.get('/api/staff/jobs?state=failed')).json().data.items as {
      id: string;
      queue: string;
    }[];
    expect(failed.map((j) => j.id)).toContain(id);
    // Support may not retry; admin may, once; a job that is not failed is refused.
    expect((await supportBrowser.post(`/api/staff/jobs/billing-renew/${id}/retry`, {})).statusCode).toBe(403);
    const retried = await adminBrowser.post(`/api/staff/jobs/billing-renew/${id}/retry`, {});
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json().data).toMatchObject({ id, queue: 'billing-renew' });
    expect(retried.json().data.state).not.toBe('failed');
    const waiting = (await boss.send(
      'billing-renew',
      { userId: 999_998, asOf: new Date().toISOString() },
      { startAfter: 3600 },
    ))!;
    expect((await adminBrowser.post(`/api/staff/jobs/billing-renew/${waiting}/retry`, {})).statusCode).toBe(422);
    expect((await auditRows(`action = 'job-retry'`)).map((r) => r.detail)).toEqual([{ queue: 'billing-renew', id }]);
  });
});
