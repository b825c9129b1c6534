import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../src/lib/metrics.js';
import { hashToken } from '../src/lib/secrets.js';
import { totpCode } from '../src/lib/totp.js';
import { PASSWORD, TestClient, createTestApp, registerUser, uniqueEmail, type TestApp } from './helpers.js';

/**
 * The staff API attacked as an outsider, a customer and a staff member would (findings of the
 * attack on the operator console; the ordinary behaviour is in staff.test.ts).
 */

let t: TestApp;

interface Account {
  id: number;
  email: string;
  recovery: string[];
  customer: TestClient;
}

async function account(role?: 'support' | 'admin'): Promise<Account> {
  const customer = new TestClient(t.app);
  const email = uniqueEmail(role ?? 'member');
  const { user } = await registerUser(customer, email);
  const secret = (await customer.post('/api/profile/2fa/setup')).json().data.secret as string;
  const enabled = await customer.post('/api/profile/2fa/enable', { code: totpCode(secret, Date.now() - 30_000) });
  expect(enabled.statusCode, enabled.body).toBe(200);
  if (role) await t.app.services.staff.grantRole(email, role);
  return { id: user.id, email, recovery: enabled.json().data.recoveryCodes, customer };
}

const newIp = () => `10.${[...randomBytes(3)].join('.')}`;
const signIn = async (browser: TestClient, a: Account) =>
  browser.post('/api/staff/session', { email: a.email, password: PASSWORD, code: a.recovery.pop() });

beforeAll(async () => {
  // Behind a proxy: each stranger's try comes from an address of its own (X-Forwarded-For).
  t = await createTestApp({ TRUST_PROXY: 'true' });
  await t.app.ready();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('a disabled staff account', () => {
  it('cannot sign in to the console again, and a session made while disabled does not work', async () => {
    const admin = await account('admin');
    const adminBrowser = new TestClient(t.app);
    expect((await signIn(adminBrowser, admin)).statusCode).toBe(200);
    const rogue = await account('support');
    expect(
      (await adminBrowser.post(`/api/staff/customers/${rogue.id}/disable`, { reason: 'rogue support member' }))
        .statusCode,
    ).toBe(200);

    const browser = new TestClient(t.app);
    const res = await signIn(browser, rogue);
    expect(res.statusCode, res.body).toBe(403);
    expect((await browser.get('/api/staff/me')).statusCode).toBe(401);
    const [row] = await t.app.db.query<{ detail: { why: string } }>(
      `select detail from staff_audit where action = 'sign-in-failed' and target_user_id = $1`,
      [rogue.id],
    );
    expect(row?.detail.why).toBe('disabled');

    // A session row that exists anyway (made before the trigger could see it) is no session.
    const token = `ws_${'a'.repeat(40)}`;
    await t.app.db.query(`insert into staff_sessions (user_id, token_hash, xsrf_key_hash) values ($1, $2, 'x')`, [
      rogue.id,
      hashToken(token),
    ]);
    expect((await browser.get('/api/staff/me', { cookies: { warren_staff: token } })).statusCode).toBe(401);

    // Enabled again, the member signs in as before.
    expect((await adminBrowser.post(`/api/staff/customers/${rogue.id}/enable`, { reason: 'cleared' })).statusCode).toBe(
      200,
    );
    expect((await signIn(new TestClient(t.app), rogue)).statusCode).toBe(200);
  });
});

describe('strangers guessing a staff password', () => {
  it('from 30 addresses slow the account down but never lock the member out (Retry-After seconds, not the 15-minute window)', async () => {
    const member = await account('support');
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await new TestClient(t.app).post(
        '/api/staff/session',
        { email: member.email, password: 'not the password', code: '000000' },
        { headers: { 'x-forwarded-for': newIp() } },
      );
      statuses.push(res.statusCode);
    }
    // 20 failures from anywhere, then one evaluation per few seconds for the whole account.
    expect(statuses.filter((s) => s === 422).length).toBeLessThanOrEqual(21);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(9);

    const owner = await new TestClient(t.app).post(
      '/api/staff/session',
      { email: member.email, password: PASSWORD, code: member.recovery.at(-1) },
      { headers: { 'x-forwarded-for': newIp() } },
    );
    if (owner.statusCode !== 200) {
      expect(owner.statusCode, owner.body).toBe(429);
      expect(Number(owner.headers['retry-after'])).toBeLessThanOrEqual(5);
    }
  });
});

describe("a customer at the console's door (issue 20, finding 3)", () => {
  const CUSTOMER_IP = '198.51.100.23';
  const CUSTOMER_UA = 'CustomerBrowser/1.0 (finding 3)';
  const dbQueries = async () => {
    const m = await t.app.services.metrics.dbDuration.get();
    return m.values.filter((v) => v.metricName?.endsWith('_count')).reduce((n, v) => n + v.value, 0);
  };
  const failures = async (reason: string) =>
    (await t.app.services.metrics.staffSignInFailures.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;

  it("leaves no row, address or hint of the right password in the audit: the answer is a wrong password's, after the same work, and a metric counts it", async () => {
    const customer = await account();
    const member = await account('support');
    const asCustomer = (body: Record<string, unknown>) =>
      new TestClient(t.app).post('/api/staff/session', body, {
        headers: { 'x-forwarded-for': CUSTOMER_IP, 'user-agent': CUSTOMER_UA },
      });
    const notStaffBefore = await failures('not-staff');

    // Measured one at a time, with the sign-up's background mail done: nothing else queries meanwhile.
    await t.app.settle();
    let before = await dbQueries();
    const right = await asCustomer({ email: customer.email, password: PASSWORD, code: customer.recovery[0] });
    const rightWork = (await dbQueries()) - before;
    before = await dbQueries();
    const wrong = await asCustomer({ email: customer.email, password: 'not the password', code: customer.recovery[1] });
    const wrongWork = (await dbQueries()) - before;
    const unknown = await asCustomer({ email: uniqueEmail('nobody'), password: PASSWORD, code: '123456' });
    const staffWrong = await asCustomer({ email: member.email, password: 'not the password', code: '123456' });

    for (const res of [right, wrong, unknown]) {
      expect(res.statusCode, res.body).toBe(staffWrong.statusCode);
      expect(res.json()).toEqual(staffWrong.json());
    }
    expect(right.statusCode).toBe(422);
    // The customer's right password does exactly the work of a wrong one (no extra query tells them apart).
    expect(rightWork).toBe(wrongWork);
    expect(await failures('not-staff')).toBe(notStaffBefore + 3);

    const [leaks] = await t.app.db.query<{ n: number }>(
      `select count(*)::int as n from staff_audit where actor = $1 or target = $1 or actor_user_id = $2 or target_user_id = $2
         or ip like '%' || $3 || '%' or user_agent like '%' || $4 || '%' or detail::text like '%' || $3 || '%'`,
      [customer.email, customer.id, CUSTOMER_IP, CUSTOMER_UA],
    );
    expect(leaks!.n).toBe(0);
    // The try on the staff member's account is audited, without the address of whoever made it.
    const rows = await t.app.db.query<{ ip: string; user_agent: string; detail: { why: string } }>(
      `select ip, user_agent, detail from staff_audit where action = 'sign-in-failed' and target_user_id = $1`,
      [member.id],
    );
    expect(rows).toEqual([{ ip: '', user_agent: '', detail: { why: 'password' } }]);
  });

  it('the failure counter is present at zero before any failure', async () => {
    const text = await createMetrics().registry.metrics();
    for (const reason of ['not-staff', 'password', 'code', 'two-factor-off', 'disabled'])
      expect(text).toContain(`warren_staff_sign_in_failures_total{reason="${reason}"} 0`);
  });
});

describe('issue 20, finding 5: the member gets in while strangers guess', () => {
  it('40 addresses guessing slow the account down, but the member with the right password and code on a browser it signed in from before gets in at once', async () => {
    const member = await account('admin');
    // The member's browser signed in before (and out again): it keeps the known-device cookie.
    const browser = new TestClient(t.app);
    expect((await signIn(browser, member)).statusCode).toBe(200);
    expect(browser.cookies.warren_staff_device).toBeTruthy();
    expect((await browser.request({ method: 'DELETE', url: '/api/staff/session' })).statusCode).toBe(200);
    expect(browser.cookies.warren_staff_device).toBeTruthy();

    const addresses = Array.from({ length: 40 }, newIp);
    const guess = (ip: string) =>
      new TestClient(t.app).post(
        '/api/staff/session',
        { email: member.email, password: 'not the password', code: '000000' },
        { headers: { 'x-forwarded-for': ip } },
      );
    const first = await Promise.all(addresses.map(guess));
    expect(first.filter((r) => r.statusCode === 429).length).toBeGreaterThanOrEqual(15);
    // The attack goes on while the member signs in, from an address of their own.
    const [owner, ...second] = await Promise.all([
      browser.post(
        '/api/staff/session',
        { email: member.email, password: PASSWORD, code: member.recovery.pop() },
        { headers: { 'x-forwarded-for': newIp() } },
      ),
      ...addresses.map(guess),
    ]);
    expect(owner!.statusCode, owner!.body).toBe(200);
    expect(second.filter((r) => r.statusCode === 429).length).toBeGreaterThanOrEqual(35);
    expect((await browser.get('/api/staff/me')).json().data.email).toBe(member.email);
  });
});

describe('the audit log page', () => {
  it('is newest first by number, not by the id as text: past id 99 (and 999) no row is skipped or out of order', async () => {
    const admin = await account('admin');
    const browser = new TestClient(t.app);
    expect((await signIn(browser, admin)).statusCode).toBe(200);
    // Enough rows that the ids cross 99 and 999 (inserting is what the log allows).
    await t.app.db.query(
      `insert into staff_audit (actor, action) select 'filler', 'customer-view' from generate_series(1, 1000)`,
    );
    const { max } = (await t.app.db.query<{ max: string }>(`select max(id)::text as max from staff_audit`))[0]!;
    const { n } = (await t.app.db.query<{ n: number }>(`select count(*)::int as n from staff_audit`))[0]!;

    const ids: number[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const res = await browser.get(`/api/staff/audit${cursor ? `?cursor=${cursor}` : ''}`);
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json().data as { items: { id: string }[]; nextCursor: string | null };
      ids.push(...page.items.map((i) => Number(i.id)));
      cursor = page.nextCursor;
    }
    expect(ids[0]).toBe(Number(max));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(new Set(ids).size).toBe(n);
  });
});

describe('ids that are not ids', () => {
  it('a job id of the right length that is no UUID is refused (422), never a database error (500)', async () => {
    const admin = await account('admin');
    const browser = new TestClient(t.app);
    expect((await signIn(browser, admin)).statusCode).toBe(200);
    for (const id of [
      '-'.repeat(36),
      `${'0'.repeat(35)}-`,
      `${'a'.repeat(8)}${'-'.repeat(28)}`,
      '0000000000000000000000000000000000ab',
    ]) {
      const res = await browser.post(`/api/staff/jobs/billing-renew/${id}/retry`, {});
      expect(res.statusCode, `${id}: ${res.body}`).toBe(422);
    }
    // A well-formed id that no job has is 404, as before.
    expect(
      (await browser.post('/api/staff/jobs/billing-renew/00000000-0000-4000-8000-000000000000/retry', {})).statusCode,
    ).toBe(404);
  });
});

describe("a support member and staff members' accounts", () => {
  it("cannot act on a staff member's account (an admin's, a colleague's, their own): 403, nothing changed, nothing audited; an admin can", async () => {
    const admin = await account('admin');
    const adminBrowser = new TestClient(t.app);
    expect((await signIn(adminBrowser, admin)).statusCode).toBe(200);
    const support = await account('support');
    const supportBrowser = new TestClient(t.app);
    expect((await signIn(supportBrowser, support)).statusCode).toBe(200);
    const colleague = await account('support');
    const audited = async () =>
      (
        await t.app.db.query<{ n: number }>(
          `select count(*)::int as n from staff_audit where actor_user_id = $1 and action <> 'sign-in'`,
          [support.id],
        )
      )[0]!.n;

    const actions: [string, unknown][] = [
      ['sign-out-all', { reason: 'kick the admin out' }],
      ['grant-days', { days: 3650, reason: 'ten years for me' }],
      ['auto-renew-off', {}],
      ['resend-verification', {}],
    ];
    for (const target of [admin, colleague, support]) {
      for (const [action, body] of actions) {
        const res = await supportBrowser.post(`/api/staff/customers/${target.id}/${action}`, body);
        expect(res.statusCode, `${action} on ${target.email}: ${res.body}`).toBe(403);
      }
    }
    expect(await audited()).toBe(0);
    expect((await adminBrowser.get('/api/staff/me')).statusCode).toBe(200);
    const [grants] = await t.app.db.query<{ n: number }>(
      `select count(*)::int as n from payments where grant_days is not null and user_id = $1`,
      [support.id],
    );
    expect(grants!.n).toBe(0);

    // An admin may: the support member's customer sessions end.
    expect(
      (await adminBrowser.post(`/api/staff/customers/${support.id}/sign-out-all`, { reason: 'admin does it' }))
        .statusCode,
    ).toBe(200);
  });
});

it('the per-address sign-in budget is the one the operator set for all sign-ins (LIMIT_LOGIN_PER_IP), not a fixed 60', async () => {
  const small = await createTestApp({ LIMIT_LOGIN_PER_IP: '3', JOBS: 'false' });
  try {
    const browser = new TestClient(small.app);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (
          await browser.post('/api/staff/session', {
            email: uniqueEmail(`nobody${i}`),
            password: 'wrong-password-1',
            code: '123456',
          })
        ).statusCode,
      );
    expect(statuses.slice(0, 3)).not.toContain(429);
    expect(statuses[3]).toBe(429);
  } finally {
    await small.close();
  }
});
