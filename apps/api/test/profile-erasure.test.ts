import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../src/lib/secrets.js';
import { totpCode } from '../src/lib/totp.js';
import { normaliseRecoveryCode } from '../src/modules/users/second-factor.js';
import {
  PASSWORD,
  TestClient,
  createTestApp,
  linkParams,
  mailTo,
  payWithSandbox,
  registerUser,
  signedUpClient,
  uniqueEmail,
  type TestApp,
} from './helpers.js';
import { createPasskey } from './webauthn-authenticator.js';

/**
 * Account deletion (issue 20, finding 4; README "Personal data: the data map"): an account used in
 * every way the product offers is deleted, then every column of every table of the database (read
 * from information_schema, so a table added later is searched without an edit here), every log
 * line the server wrote during the test and every file in DATA_DIR (the mail outbox) are searched
 * for what identified the person. What the map keeps (an issued receipt's accounting facts, the
 * payment rows, the staff audit's events) stays under the account's number only: every table that
 * still points at the deleted account's id must be one the map names as kept.
 */

let t: TestApp;
const logLines: string[] = [];
beforeAll(async () => {
  t = await createTestApp(
    { JOBS: 'false', LOG_LEVEL: 'trace', REWARD_DAYS: '14' },
    { logStream: { write: (line: string) => void logLines.push(line) } },
  );
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const DAY = 86_400_000;
const wgKey = () =>
  generateKeyPairSync('x25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
const ok = <R extends { statusCode: number; body: string }>(res: R, status = 200): R => {
  expect(res.statusCode, res.body).toBe(status);
  return res;
};

/** Tables that may keep rows pointing at a deleted account's id, and why (the data map says the same). */
const KEPT_WITH_ID: Record<string, string> = {
  'users.id': 'the erased stub: the id payments and receipts name, nothing else',
  'payments.user_id': 'accounting: what was paid, when, for which plan',
  'refund_requests.user_id': 'accounting: a refund asked for',
  'vpn_changes.user_id': 'the change log agents follow (a number, pruned)',
  'staff_audit.target_user_id': 'the event staff made, without the email',
  'staff_audit.actor_user_id': 'the event staff made, without the email',
};

interface Hit {
  where: string;
  needle: string;
}

/** Every base table of the app's schemas (its own and the job engine's), every column cast to text. */
async function searchDatabase(
  needles: string[],
  userId: number,
): Promise<{ hits: Hit[]; idRefs: string[]; tables: number }> {
  const db = t.app.db;
  const schemas = await db.query<{ s: string }>(
    `select schema_name as s from information_schema.schemata
     where schema_name = current_schema() or schema_name = current_schema() || '_jobs' or ($1 and schema_name = 'pgboss')`,
    [db.kind === 'pglite'],
  );
  const columns = await db.query<{ table_schema: string; table_name: string; column_name: string }>(
    `select c.table_schema, c.table_name, c.column_name from information_schema.columns c
     join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
     where c.table_schema = any($1::text[]) order by c.table_schema, c.table_name, c.ordinal_position`,
    [schemas.map((s) => s.s)],
  );
  const q = (id: string) => `"${id.replace(/"/g, '""')}"`;
  const hits: Hit[] = [];
  const idRefs: string[] = [];
  const lowered = needles.map((n) => `%${n.toLowerCase().replace(/[\\%_]/g, (m) => `\\${m}`)}%`);
  for (const c of columns) {
    const col = `${q(c.table_schema)}.${q(c.table_name)}`;
    const rows = await db.query<{ v: string }>(
      `select ${q(c.column_name)}::text as v from ${col} where lower(${q(c.column_name)}::text) like any($1::text[])`,
      [lowered],
    );
    for (const r of rows)
      for (const n of needles)
        if (r.v.toLowerCase().includes(n.toLowerCase()))
          hits.push({ where: `${c.table_name}.${c.column_name}`, needle: n });
    const isUserRef =
      c.column_name === 'user_id' ||
      c.column_name.endsWith('_user_id') ||
      (c.table_name === 'users' && c.column_name === 'id');
    if (isUserRef && c.table_schema === schemas.find((s) => !s.s.endsWith('_jobs') && s.s !== 'pgboss')?.s) {
      const [n] = await db.query<{ n: number }>(
        `select count(*)::int as n from ${col} where ${q(c.column_name)}::text = $1`,
        [String(userId)],
      );
      if (n!.n > 0) idRefs.push(`${c.table_name}.${c.column_name}`);
    }
  }
  return { hits, idRefs, tables: new Set(columns.map((c) => `${c.table_schema}.${c.table_name}`)).size };
}

/** Every file under DATA_DIR (the outbox and whatever a later change keeps there), as text. */
function dataFiles(dir: string): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out.push({ file: path.relative(dir, file), text: fs.readFileSync(file, 'utf8') });
  }
  return out;
}

async function staffAdmin() {
  const c = new TestClient(t.app);
  const email = uniqueEmail('admin');
  await registerUser(c, email);
  const secret = (await c.post('/api/profile/2fa/setup')).json().data.secret as string;
  const recovery = ok(await c.post('/api/profile/2fa/enable', { code: totpCode(secret, Date.now() - 30_000) })).json()
    .data.recoveryCodes as string[];
  await t.app.services.staff.grantRole(email, 'admin');
  const browser = new TestClient(t.app);
  ok(await browser.post('/api/staff/session', { email, password: PASSWORD, code: recovery.pop() }));
  return browser;
}

/**
 * An account that used everything: verified, two-factor with recovery codes (one used), a second
 * session, a sandbox purchase with the card saved and auto-renew on, its receipt, a renewal
 * reminder, WireGuard devices with names, OpenVPN/SOCKS5 and stealth credentials, the ad blocker, invited by a
 * friend (rewards both ways), an affiliate partner with a click and a paying referral, mails, and
 * staff who searched for it, viewed it, granted it days and reset its credentials.
 */
async function fullyUsedAccount(admin: TestClient) {
  const tag = Math.random().toString(36).slice(2, 8);
  const first = `Ottoline${tag}`;
  const last = `Quibblewick${tag}`;
  const local = `ottoline.quibblewick.${tag}`;
  const email = `${local}@example.com`;
  const userAgent = `ErasureProbe/${tag} (Ottoline's browser)`;
  const devices = [`Ottoline's Pixel ${tag}`, `Quibblewick-ThinkPad-${tag}`];

  const { c: inviter } = await signedUpClient(t.app);
  const friendId = (await inviter.get('/api/rewards')).json().data.friendId as string;

  const c = new TestClient(t.app, { userAgent });
  const { user } = await registerUser(c, email, { name: `${first} ${last}`, friendID: friendId });
  const { userId, token } = linkParams((await mailTo(c, t.app, email))[0]!.text, '/sign-in');
  ok(await c.post('/api/users/verifyUser', { userId, token }));

  const secret = ok(await c.post('/api/profile/2fa/setup')).json().data.secret as string;
  const recoveryCodes = ok(
    await c.post('/api/profile/2fa/enable', { code: totpCode(secret, Date.now() - 30_000) }),
  ).json().data.recoveryCodes as string[];
  const second = new TestClient(t.app, { userAgent });
  const signedIn = ok(
    await second.post('/api/users/login', { email, password: PASSWORD, otp: recoveryCodes[0] }),
  ).json().data;
  second.token = signedIn.token;

  // A billing address with a VAT number (issue 23): on the account and copied onto the receipt.
  const street = `${tag} Quibblewick Lane 7`;
  ok(
    await c.post('/api/billing/address', {
      name: `${first} ${last}`,
      line1: street,
      city: 'Berlin',
      postalCode: '10115',
      country: 'DE',
      vatNumber: 'DE123456789',
    }),
  );
  // A monthly plan with the sandbox card kept for renewals, auto-renew on.
  const created = ok(
    await c.post('/api/billing/createPayment', {
      tariffId: 2,
      currency: 'USD',
      provider: 'sandbox',
      returnPath: '/thank-you',
      autoRenew: true,
    }),
  ).json().data;
  const sandboxId = new URL(created.redirectUrl as string).pathname.split('/').pop()!;
  ok(
    await t.app.inject({
      method: 'POST',
      url: `/sandbox/checkout/${sandboxId}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'outcome=pay',
    }),
  );
  const sub = ok(await c.get('/api/billing/subscription')).json().data;
  expect(sub).toMatchObject({ autoRenew: true, paymentMethod: { provider: 'sandbox' } });
  const cardLabel = sub.paymentMethod.label as string;
  const [renewal] = await t.app.db.query<{ method_ref: string }>(
    'select method_ref from subscription_renewals where user_id = $1',
    [user.id],
  );
  const cardRef = renewal!.method_ref;
  const paymentId = ok(await c.get('/api/billing/payments')).json().data.items[0].paymentId as string;
  ok(await c.get(`/api/billing/payments/${paymentId}/receipt`));
  // The renewal reminder (a billing notice and its mail), three days before the charge.
  const paidUntil = new Date(sub.paidUntil as string);
  expect(await t.app.services.billing.renewals.sendReminders(new Date(paidUntil.getTime() - 6 * DAY + 3600_000))).toBe(
    1,
  );

  const keys = [wgKey(), wgKey()];
  for (const [i, name] of devices.entries())
    ok(await c.post('/api/setup/wg/devices/add', { name, publicKey: keys[i] }), 201);
  const services = ok(await c.get('/api/setup/services/get')).json().data;
  const [creds] = await t.app.db.query<{ username: string }>(
    'select username from service_credentials where user_id = $1',
    [user.id],
  );
  expect(creds?.username).toBeTruthy();
  ok(await c.post('/api/setup/features/state', { id: 1, state: true }));
  ok(await c.get('/api/setup/stealth/get'));
  expect(await t.app.db.query('select 1 from stealth_credentials where user_id = $1', [user.id])).toHaveLength(1);
  // A passkey named after the person (a software authenticator, test/webauthn-authenticator.ts), and a ceremony left in flight.
  const passkeyName = `${first}'s phone`;
  const pkOptions = ok(await c.post('/api/profile/passkeys/register/options', { password: PASSWORD })).json().data;
  const made = createPasskey(pkOptions, { origin: 'http://localhost' });
  ok(await c.post('/api/profile/passkeys/register/verify', { response: made.response, name: passkeyName }));
  ok(await c.post('/api/profile/passkeys/register/options', { password: PASSWORD }));

  // An affiliate partner: a click on the link, a referred member who pays.
  const referralId = ok(await c.get('/api/affiliate/stats')).json().data.referralId as string;
  await new TestClient(t.app).post('/api/affiliate/session/create', {
    url: `http://localhost/checkout?referralID=${referralId}&partner=${local}`,
    referralID: referralId,
  });
  const { c: referred } = await signedUpClient(t.app, { referralID: referralId });
  await payWithSandbox(t.app, referred, 2);
  expect(ok(await inviter.get('/api/rewards')).json().data.invited).toBe(1);

  // Staff look the customer up by email, view the account, grant days (the reason names the customer) and reset the credentials.
  const found = ok(await admin.get(`/api/staff/customers?q=${encodeURIComponent(email)}`)).json().data.items;
  expect(found.map((f: { id: number }) => f.id)).toContain(user.id);
  ok(await admin.get(`/api/staff/customers/${user.id}`));
  ok(
    await admin.post(`/api/staff/customers/${user.id}/grant-days`, {
      days: 3,
      reason: `${first} ${last} <${email}> asked for goodwill days`,
    }),
  );
  ok(await admin.post(`/api/staff/customers/${user.id}/reset-service-credentials`, { reason: `leaked by ${email}` }));
  await t.app.settle();

  const tokenHashes = [c.token!, second.token!].map(hashToken);
  const needles = [
    email,
    local,
    first,
    last,
    userAgent,
    ...devices,
    ...keys,
    cardRef,
    creds!.username,
    street,
    secret,
    referralId,
    ...recoveryCodes.map((code) => hashToken(normaliseRecoveryCode(code))),
    ...tokenHashes,
    passkeyName,
    made.response.id as string,
  ];
  // The card's label is one every sandbox card has: it must be gone from the account's renewal (searched below).
  void services;
  return { c, second, user, email, cardLabel, cardRef, needles };
}

describe('deleting an account', () => {
  it('leaves nothing that names the person in any table, log line or file; kept records carry only the number', async () => {
    const admin = await staffAdmin();
    const a = await fullyUsedAccount(admin);
    // Before: the search finds the person (the search works).
    const before = await searchDatabase(a.needles, a.user.id);
    expect(before.hits.map((h) => h.needle)).toEqual(expect.arrayContaining([a.email, a.cardRef]));
    expect(before.tables).toBeGreaterThan(30);
    expect(logLines.length).toBeGreaterThan(50);

    ok(await a.c.post('/api/users/annihilation', { password: PASSWORD }));
    await t.app.settle();

    // Signed out everywhere, the VPN gone at once.
    expect((await a.c.get('/api/users/info/get')).statusCode).toBe(401);
    expect((await a.second.get('/api/users/info/get')).statusCode).toBe(401);

    const after = await searchDatabase(a.needles, a.user.id);
    expect(after.hits).toEqual([]);
    expect(after.idRefs.filter((r) => !(r in KEPT_WITH_ID))).toEqual([]);
    // The renewal: off, no saved method here or at the provider.
    expect(await t.app.db.query('select 1 from subscription_renewals where user_id = $1', [a.user.id])).toEqual([]);
    expect(await t.app.services.sandbox!.card(a.cardRef)).toBeUndefined();
    // The receipt stays (accounting), without the buyer.
    const receipts = await t.app.db.query<{ data: Record<string, unknown> }>(
      'select r.data from receipts r join payments p on p.id = r.payment_id where p.user_id = $1',
      [a.user.id],
    );
    expect(receipts).toHaveLength(1);
    expect(receipts[0]!.data).toMatchObject({ amountMinor: 1299, currency: 'USD', tariffKey: '1-month' });
    expect(JSON.stringify(receipts[0]!.data)).not.toContain('@example.com');

    // Every log line the server wrote during the test.
    const logged = logLines.flatMap((line) =>
      a.needles
        .filter((n) => line.toLowerCase().includes(n.toLowerCase()))
        .map((n) => ({ n, line: line.slice(0, 300) })),
    );
    expect(logged).toEqual([]);

    // DATA_DIR: only the deletion confirmation (sent after the erasure) still holds the address.
    const files = dataFiles(t.dataDir).filter((f) =>
      a.needles.some((n) => f.text.toLowerCase().includes(n.toLowerCase())),
    );
    expect(files.map((f) => f.file)).toHaveLength(1);
    const confirmation = JSON.parse(files[0]!.text) as { to: string; subject: string; text: string };
    expect(confirmation.to).toBe(a.email);
    expect(confirmation.subject).toMatch(/deleted/i);
    expect(
      a.needles.filter(
        (n) =>
          n !== a.email && n !== a.email.split('@')[0] && confirmation.text.toLowerCase().includes(n.toLowerCase()),
      ),
    ).toEqual([]);
  }, 120_000);

  it("two deletions at once erase once and mail once; a staff deletion racing the customer's finds nothing left", async () => {
    const admin = await staffAdmin();
    for (const racer of ['customer', 'staff'] as const) {
      const c = new TestClient(t.app);
      const email = uniqueEmail('twice');
      const { user } = await registerUser(c, email);
      const second = new TestClient(t.app);
      second.token = ok(await second.post('/api/users/login', { email, password: PASSWORD })).json().data.token;
      const other =
        racer === 'customer'
          ? second.post('/api/users/annihilation', { password: PASSWORD })
          : admin.post(`/api/staff/customers/${user.id}/delete`, { reason: 'race' });
      const [mine, theirs] = await Promise.all([c.post('/api/users/annihilation', { password: PASSWORD }), other]);
      const codes = [mine.statusCode, theirs.statusCode].sort();
      expect(codes, `${racer}: ${mine.body} ${theirs.body}`).toEqual(
        racer === 'customer' ? [200, 401] : mine.statusCode === 200 ? [200, 404] : [200, 401],
      );
      await t.app.settle();
      const [row] = await t.app.db.query<{ email: string; deleted_at: Date | null }>(
        'select email, deleted_at from users where id = $1',
        [user.id],
      );
      expect(row).toMatchObject({ email: `deleted-${user.id}@deleted.invalid` });
      // The confirmation when a customer's deletion won, none when staff won (the console's deletion
      // mails nothing), and no earlier mail kept: not even the "new sign-in" notice of `second`, which
      // runs in the background and could be written after the erasure forgot the outbox's mails.
      await t.app.settle();
      const mails = dataFiles(t.dataDir).filter((f) => f.text.includes(email));
      const customerWon = racer === 'customer' || mine.statusCode === 200;
      expect(
        mails.map((m) => (JSON.parse(m.text) as { subject: string }).subject),
        `${racer}: ${mine.statusCode}`,
      ).toEqual(customerWon ? [expect.stringMatching(/deleted/)] : []);
    }
  }, 60_000);

  it('a renewal charge under way when the account is deleted takes nothing: the saved card is gone before the charge', async () => {
    const c = new TestClient(t.app);
    const { user } = await registerUser(c, uniqueEmail('renewing'));
    const created = ok(
      await c.post('/api/billing/createPayment', {
        tariffId: 2,
        currency: 'USD',
        provider: 'sandbox',
        returnPath: '/thank-you',
        autoRenew: true,
      }),
    ).json().data;
    const sandboxId = new URL(created.redirectUrl as string).pathname.split('/').pop()!;
    ok(
      await t.app.inject({
        method: 'POST',
        url: `/sandbox/checkout/${sandboxId}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'outcome=pay',
      }),
    );
    const sub = ok(await c.get('/api/billing/subscription')).json().data;
    expect(sub.autoRenew).toBe(true);
    const dueAt = new Date(new Date(sub.paidUntil as string).getTime() - 3 * DAY + 60_000);

    // The renewal reaches the provider call, stops there until the deletion has finished, then goes on.
    const sandbox = t.app.services.sandbox!;
    const charge = sandbox.chargeSaved;
    let entered!: () => void;
    const reached = new Promise<void>((r) => (entered = r));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    sandbox.chargeSaved = async (input) => {
      entered();
      await gate;
      return charge(input);
    };
    try {
      const renewal = t.app.services.billing.renewals.renewOne(user.id, dueAt);
      await reached;
      ok(await c.post('/api/users/annihilation', { password: PASSWORD }));
      release();
      expect(await renewal).toMatchObject({ outcome: 'failed' });
    } finally {
      sandbox.chargeSaved = charge;
    }
    const renewals = await t.app.db.query<{ status: string }>(
      `select status from payments where user_id = $1 and kind = 'renewal'`,
      [user.id],
    );
    expect(renewals.map((p) => p.status)).toEqual(['failed']);
    // A later pass finds nothing to renew or to mail.
    expect(await t.app.services.billing.renewals.renewOne(user.id, new Date(dueAt.getTime() + DAY))).toEqual({
      outcome: 'not-due',
    });
    expect(await t.app.db.query('select 1 from billing_notices where user_id = $1', [user.id])).toEqual([]);
  }, 60_000);

  it('a checkout paid after the deletion does not bring back a saved card or auto-renew', async () => {
    const c = new TestClient(t.app);
    const { user } = await registerUser(c, uniqueEmail('late-payer'));
    const created = ok(
      await c.post('/api/billing/createPayment', {
        tariffId: 2,
        currency: 'USD',
        provider: 'sandbox',
        returnPath: '/thank-you',
        autoRenew: true,
      }),
    ).json().data;
    const sandboxId = new URL(created.redirectUrl as string).pathname.split('/').pop()!;
    ok(await c.post('/api/users/annihilation', { password: PASSWORD }));
    // The provider's page was still open: paid after the account was gone.
    ok(
      await t.app.inject({
        method: 'POST',
        url: `/sandbox/checkout/${sandboxId}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'outcome=pay',
      }),
    );
    await t.app.settle();
    for (const { event } of await t.app.services.sandbox!.undelivered()) {
      const { body, signature } = t.app.services.sandbox!.signedDelivery(event);
      await t.app.inject({
        method: 'POST',
        url: '/api/billing/webhooks/sandbox',
        headers: { 'content-type': 'application/json', 'sandbox-signature': signature },
        payload: body,
      });
    }
    await t.app.settle();
    expect(
      await t.app.db.query<{ status: string }>('select status from payments where user_id = $1', [user.id]),
    ).toEqual([expect.objectContaining({ status: 'succeeded' })]);
    expect(await t.app.db.query('select 1 from subscription_renewals where user_id = $1', [user.id])).toEqual([]);
    expect((await t.app.services.sandbox!.find(sandboxId))?.card_id).toBeNull();
    expect(await t.app.db.query('select 1 from billing_notices where user_id = $1', [user.id])).toEqual([]);
  }, 60_000);
});
