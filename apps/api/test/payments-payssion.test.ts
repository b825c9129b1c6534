import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePayssion, startFakePayssion, v2Sign } from './fakes/payssion.js';
import { TestClient, createTestApp, registerUser, type TestApp, subscriptionOf } from './helpers.js';

/** Payssion v1 (hosted payment) and v2 (mandates) against a local fake; notifications over real HTTP. */
const API_KEY = 'payssion-api-key-test';
const SECRET = 'payssion-secret-key-test';

let t: TestApp;
let payssion: FakePayssion;
let origin: string;

beforeAll(async () => {
  payssion = await startFakePayssion({ apiKey: API_KEY, secretKey: SECRET });
  t = await createTestApp({
    JOBS: 'false',
    PAYSSION_API_KEY: API_KEY,
    PAYSSION_SECRET_KEY: SECRET,
    PAYSSION_API_URL: payssion.url,
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t?.close();
  await payssion?.close();
});

async function customer() {
  const c = new TestClient(t.app, { host: origin });
  const { user } = await registerUser(c);
  return { c, user };
}
const subscription = subscriptionOf;
type Created = { paymentId: string; redirectUrl?: string; status?: string; amount: number };
async function checkout(
  c: TestClient,
  body: Record<string, unknown> = {},
  path = '/api/billing/getPayssionPaymentData',
) {
  const res = await c.post(path, { tariffId: 2, currency: 'USD', ...body });
  expect(res.statusCode, res.body).toBe(200);
  const data = res.json().data as Created;
  return { data, tx: payssion.byOrder(data.paymentId)! };
}
const paymentRow = async (publicId: string) =>
  (
    await t.app.db.query<{ status: string; applied: boolean; provider_ref: string }>(
      'select status, applied, provider_ref from payments where public_id = $1',
      [publicId],
    )
  )[0]!;
const days = (iso: string | null) => Math.round((new Date(iso!).getTime() - Date.now()) / 86_400_000);

describe('Payssion v1', () => {
  it('getPayssionPaymentData opens a hosted payment; the signed notification activates the plan', async () => {
    const { c, user } = await customer();
    const { data, tx } = await checkout(c, { type: 'alipay_cn' });
    expect(data.redirectUrl).toBe(`${payssion.url}/pay/${tx.transaction_id}`);
    expect(tx).toMatchObject({
      pm_id: 'alipay_cn',
      amount: '12.99',
      currency: 'USD',
      order_id: data.paymentId,
      payer_email: user.email,
      notify_url: `http://${origin}/api/billing/webhooks/payssion`,
      state: 'pending',
    });
    expect(tx.return_url.startsWith(`http://${origin}/`)).toBe(true);
    expect((await paymentRow(data.paymentId)).provider_ref).toBe(tx.transaction_id);

    const res = await payssion.notify(tx.transaction_id, payssion.complete(tx.transaction_id));
    expect(res).toEqual({ status: 200, body: 'ok' });
    expect(await subscription(c)).toMatchObject({ tariffKey: '1-month', accountStatus: 'Active' });
    expect(days((await subscription(c)).expiresAt)).toBe(30);
    expect(await paymentRow(data.paymentId)).toMatchObject({ status: 'succeeded', applied: true });
    // The state was re-derived with the details call.
    expect(
      payssion.requests.some(
        (r) => r.path === '/api/v1/payment/details' && r.form.get('transaction_id') === tx.transaction_id,
      ),
    ).toBe(true);
  });

  it('defaults pm_id to payssion_test', async () => {
    const { c } = await customer();
    const { tx } = await checkout(c);
    expect(tx.pm_id).toBe('payssion_test');
  });

  it('an unsigned, wrongly signed or tampered notification is a 400 with no side effects', async () => {
    const { c } = await customer();
    const { data, tx } = await checkout(c);
    const good = payssion.complete(tx.transaction_id);
    const { notify_sig: _sig, ...unsigned } = good;
    const attempts = [
      await payssion.notify(tx.transaction_id, unsigned),
      await payssion.notify(tx.transaction_id, { ...good, notify_sig: '0'.repeat(32) }),
      await payssion.notify(tx.transaction_id, { ...good, amount: '0.01' }),
      await payssion.notify(tx.transaction_id, { ...good, order_id: 'pay_someone_else' }),
    ];
    expect(attempts.map((a) => a.status)).toEqual([400, 400, 400, 400]);
    expect((await subscription(c)).tariffKey).toBe('free-plan');
    expect(await paymentRow(data.paymentId)).toMatchObject({ status: 'pending', applied: false });
  });

  it('a correctly signed but outdated notification cannot activate what Payssion says is unpaid', async () => {
    const { c, user } = await customer();
    const { data, tx } = await checkout(c);
    const claimsPaid = payssion.complete(tx.transaction_id);
    payssion.txs.get(tx.transaction_id)!.state = 'failed'; // e.g. the payment was reversed before we heard of it
    expect((await payssion.notify(tx.transaction_id, claimsPaid)).status).toBe(200);
    expect(await paymentRow(data.paymentId)).toMatchObject({ status: 'failed', applied: false });
    expect((await subscription(c)).tariffKey).toBe('free-plan');
    void user;
  });

  it('replays (3 in a row, 10 at once) extend once; a refund takes the period back', async () => {
    const { c } = await customer();
    const { tx } = await checkout(c);
    const paid = payssion.complete(tx.transaction_id);
    for (let i = 0; i < 3; i++) expect((await payssion.notify(tx.transaction_id, paid)).status).toBe(200);
    const once = (await subscription(c)).expiresAt;
    const burst = await Promise.all(Array.from({ length: 10 }, () => payssion.notify(tx.transaction_id, paid)));
    expect(burst.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect((await subscription(c)).expiresAt).toBe(once);
    expect(days(once)).toBe(30);
    expect((await payssion.notify(tx.transaction_id, payssion.complete(tx.transaction_id, 'refunded'))).status).toBe(
      200,
    );
    expect((await subscription(c)).tariffKey).toBe('free-plan');
  });

  it('20 concurrent checkouts with one idempotency key make one Payssion payment', async () => {
    const { c } = await customer();
    const before = payssion.createdCount();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        c.post('/api/billing/createPayment', {
          tariffId: 3,
          currency: 'USD',
          provider: 'payssion',
          idempotencyKey: 'payssion-same-key-1',
        }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    expect(new Set(results.map((r) => r.json().data.redirectUrl)).size).toBe(1);
    expect(payssion.createdCount() - before).toBe(1);
  });

  it('a retry whose earlier answer was lost finds the order by details instead of paying twice', async () => {
    const { c } = await customer();
    const key = 'payssion-lost-answer-1';
    const { data, tx } = await checkout(c, { idempotencyKey: key });
    await t.app.db.query(`delete from provider_checkouts where merchant_ref = $1`, [data.paymentId]);
    const before = payssion.createdCount();
    // Still open at Payssion: we cannot show its page again, and we do not open a second one.
    const open = await c.post('/api/billing/getPayssionPaymentData', {
      tariffId: 2,
      currency: 'USD',
      idempotencyKey: key,
    });
    expect(open.statusCode).toBe(409);
    expect(payssion.createdCount()).toBe(before);
    // Paid meanwhile: the retry answers the same payment and still creates nothing.
    payssion.complete(tx.transaction_id);
    const paid = await c.post('/api/billing/getPayssionPaymentData', {
      tariffId: 2,
      currency: 'USD',
      idempotencyKey: key,
    });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json().data.paymentId).toBe(data.paymentId);
    expect(payssion.createdCount()).toBe(before);
  });

  it('a refused method is a 400 on the type field; an unreachable Payssion is a 503 that leaks nothing', async () => {
    const { c } = await customer();
    const refused = await c.post('/api/billing/getPayssionPaymentData', {
      tariffId: 2,
      currency: 'USD',
      type: 'unknown_method',
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors.type).toBeDefined();
    payssion.setDown(true);
    try {
      const down = await c.post('/api/billing/getPayssionPaymentData', { tariffId: 2, currency: 'USD' });
      expect(down.statusCode).toBe(503);
      expect(down.json()).toEqual({ message: 'The payment provider is unavailable. Please try again later.' });
      expect(down.headers['retry-after']).toBe('30');
    } finally {
      payssion.setDown(false);
    }
  });
});

describe('Payssion v2 mandates', () => {
  const mandatesOf = async (userId: number) =>
    t.app.db.query<{ mandate_id: string; status: string }>(
      `select mandate_id, status from payment_mandates where user_id = $1 order by id`,
      [userId],
    );

  it('first payment creates a mandate on a hosted page; the next is charged directly; a revoked mandate asks again', async () => {
    const { c, user } = await customer();
    const first = await checkout(c, {}, '/api/billing/getPayssionV2MandateOrDoPayment');
    expect(first.data.redirectUrl).toBe(`${payssion.url}/mandate/${first.tx.mandate_id}`);
    expect(await mandatesOf(user.id)).toEqual([{ mandate_id: first.tx.mandate_id, status: 'pending' }]);
    expect((await payssion.notify(first.tx.transaction_id, payssion.complete(first.tx.transaction_id))).status).toBe(
      200,
    );
    expect(days((await subscription(c)).expiresAt)).toBe(30);
    expect(await mandatesOf(user.id)).toEqual([{ mandate_id: first.tx.mandate_id, status: 'active' }]);
    // Only provider ids are stored: no card data columns at all.
    const columns = (
      await t.app.db.query<{ column_name: string }>(
        `select column_name from information_schema.columns where table_schema = current_schema() and table_name = 'payment_mandates'`,
      )
    ).map((r) => r.column_name);
    expect(columns.sort()).toEqual(['created_at', 'id', 'mandate_id', 'provider', 'status', 'updated_at', 'user_id']);

    const charges = payssion.directCharges();
    const second = await checkout(c, {}, '/api/billing/getPayssionV2MandateOrDoPayment');
    expect(second.data.redirectUrl).toBeUndefined();
    expect(second.data.status).toBe('succeeded');
    expect(payssion.directCharges()).toBe(charges + 1);
    expect(second.tx.mandate_id).toBe(first.tx.mandate_id);
    expect(
      (await payssion.notify(second.tx.transaction_id, payssion.notification(second.tx.transaction_id))).status,
    ).toBe(200);
    expect(days((await subscription(c)).expiresAt)).toBe(60);

    payssion.revokeMandate(first.tx.mandate_id!);
    const third = await checkout(c, {}, '/api/billing/getPayssionV2MandateOrDoPayment');
    expect(third.data.redirectUrl).toMatch(/\/mandate\/M/);
    expect(third.tx.mandate_id).not.toBe(first.tx.mandate_id);
    expect(await mandatesOf(user.id)).toEqual([
      { mandate_id: first.tx.mandate_id, status: 'revoked' },
      { mandate_id: third.tx.mandate_id, status: 'pending' },
    ]);
    expect(payssion.directCharges()).toBe(charges + 1);
  });

  it('requests to Payssion carry a valid HMAC-SHA256 signature over the sorted fields', () => {
    const v2 = payssion.requests.filter((r) => r.path.startsWith('/api/v2/'));
    expect(v2.length).toBeGreaterThan(0);
    for (const r of v2) expect(r.form.get('signature')).toBe(v2Sign(SECRET, Object.fromEntries(r.form)));
  });

  it('an unsigned, wrongly signed or stale v2 notification is a 400 with no side effects', async () => {
    const { c } = await customer();
    const { data, tx } = await checkout(c, {}, '/api/billing/getPayssionV2MandateOrDoPayment');
    const good = payssion.complete(tx.transaction_id);
    const { notify_sig: _sig, ...unsigned } = good;
    const staleFields = { ...unsigned, timestamp: String(Math.floor(Date.now() / 1000) - 301) };
    const attempts = [
      await payssion.notify(tx.transaction_id, unsigned),
      await payssion.notify(tx.transaction_id, { ...good, state: 'completed ', notify_sig: good.notify_sig! }),
      await payssion.notify(tx.transaction_id, { ...good, notify_sig: v2Sign('wrong secret', unsigned) }),
      await payssion.notify(tx.transaction_id, { ...staleFields, notify_sig: v2Sign(SECRET, staleFields) }),
    ];
    expect(attempts.map((a) => a.status)).toEqual([400, 400, 400, 400]);
    expect((await subscription(c)).tariffKey).toBe('free-plan');
    expect(await paymentRow(data.paymentId)).toMatchObject({ status: 'pending', applied: false });
    expect((await payssion.notify(tx.transaction_id, good)).status).toBe(200);
    expect((await subscription(c)).tariffKey).toBe('1-month');
  });
});
