import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeStripe, startFakeStripe } from './fakes/stripe.js';
import { TestClient, createTestApp, registerUser, type TestApp, subscriptionOf } from './helpers.js';

/** Stripe through the official SDK against a local fake that speaks Stripe's REST protocol; webhooks over real HTTP. */
const SECRET_KEY = 'sk_test_fake_0123456789';
const WEBHOOK_SECRET = 'whsec_test_fake_0123456789abcdef';

let t: TestApp;
let stripe: FakeStripe;
let origin: string;
let endpoint: string;

beforeAll(async () => {
  stripe = await startFakeStripe({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
  t = await createTestApp({
    JOBS: 'false',
    STRIPE_SECRET_KEY: SECRET_KEY,
    STRIPE_PUBLISHABLE_KEY: 'pk_test_fake_0123456789',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_URL: stripe.url,
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  endpoint = `http://${origin}/api/billing/webhooks/stripe`;
});
afterAll(async () => {
  await t?.close();
  await stripe?.close();
});

async function customer() {
  const c = new TestClient(t.app, { host: origin });
  const { user } = await registerUser(c);
  return { c, user };
}
const subscription = subscriptionOf;
async function checkout(c: TestClient) {
  const res = await c.get('/api/billing/getStripePayment?tariffId=2&currency=USD');
  expect(res.statusCode, res.body).toBe(200);
  const data = res.json().data as { paymentId: string; clientSecret: string; publishableKey: string; amount: number };
  const pi = [...stripe.intents.values()].find((p) => p.metadata.merchant_ref === data.paymentId)!;
  return { data, pi };
}
const paymentRow = async (publicId: string) =>
  (
    await t.app.db.query<{ status: string; applied: boolean; provider_ref: string }>(
      'select status, applied, provider_ref from payments where public_id = $1',
      [publicId],
    )
  )[0]!;
const eventsOf = async (publicId: string) =>
  (
    await t.app.db.query<{ n: number }>(
      'select count(*)::int as n from provider_events e join payments p on p.id = e.payment_id where p.public_id = $1',
      [publicId],
    )
  )[0]!.n;

describe('Stripe', () => {
  it('getStripePayment creates a PaymentIntent; the signed payment_intent.succeeded webhook activates the plan', async () => {
    const { c } = await customer();
    const { data, pi } = await checkout(c);
    expect(data.publishableKey).toBe('pk_test_fake_0123456789');
    expect(data.clientSecret).toBe(pi.client_secret);
    expect(pi).toMatchObject({ amount: 1299, currency: 'usd', status: 'requires_payment_method' });
    expect((await paymentRow(data.paymentId)).provider_ref).toBe(pi.id);
    expect((await subscription(c)).tariffKey).toBe('free-plan');

    const res = await stripe.send(endpoint, stripe.pay(pi.id));
    expect(res).toEqual({ status: 200, body: '{"received":true}' });
    const sub = await subscription(c);
    expect(sub).toMatchObject({ tariffKey: '1-month', accountStatus: 'Active' });
    expect(Math.abs(new Date(sub.expiresAt!).getTime() - (Date.now() + 30 * 86_400_000))).toBeLessThan(60_000);
    expect(await paymentRow(data.paymentId)).toMatchObject({ status: 'succeeded', applied: true });
    // The state was re-read from Stripe (GET with expand), not taken from the body.
    expect(
      stripe.requests.some(
        (r) =>
          r.method === 'GET' &&
          r.path === `/v1/payment_intents/${pi.id}` &&
          [...r.query.values()].includes('latest_charge'),
      ),
    ).toBe(true);
  });

  it('createPayment sends the browser to Stripe Checkout; checkout.session.completed activates the plan, a refund takes it back', async () => {
    const { c } = await customer();
    const res = await c.post('/api/billing/createPayment', {
      tariffId: 2,
      currency: 'USD',
      provider: 'stripe',
      returnPath: '/zg/paymentEvent',
    });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data as { paymentId: string; redirectUrl: string };
    const session = [...stripe.sessions.values()].find((s) => s.metadata.merchant_ref === data.paymentId)!;
    expect(data.redirectUrl).toBe(session.url);
    expect(session).toMatchObject({ amount_total: 1299, currency: 'usd', client_reference_id: data.paymentId });
    expect(session.success_url).toMatch(/\/zg\/paymentEvent\?redirect_status=succeeded$/);
    expect(session.cancel_url).toMatch(/redirect_status=failed$/);
    expect((await stripe.send(endpoint, stripe.paySession(session.id))).status).toBe(200);
    expect(await subscription(c)).toMatchObject({ tariffKey: '1-month', accountStatus: 'Active' });
    // The refund arrives as a charge event that names only the PaymentIntent.
    expect((await stripe.send(endpoint, stripe.refund(session.payment_intent!))).status).toBe(200);
    expect((await subscription(c)).tariffKey).toBe('free-plan');
    expect(await paymentRow(data.paymentId)).toMatchObject({ status: 'refunded' });
  });

  it('a tampered, unsigned, wrongly signed or 301-second-old webhook is a 400 with no side effects', async () => {
    const { c } = await customer();
    const { data, pi } = await checkout(c);
    const payload = stripe.pay(pi.id);
    const now = Math.floor(Date.now() / 1000);
    const tampered = payload.replace('"livemode":false', '"livemode":false ');
    const attempts = [
      await stripe.send(endpoint, payload, null),
      await stripe.send(endpoint, tampered, stripe.signature(payload)),
      await stripe.send(endpoint, payload, stripe.signature(payload, now, 'whsec_someone_else')),
      await stripe.send(endpoint, payload, stripe.signature(payload, now - 301)),
      await stripe.send(endpoint, payload, 't=abc,v1=nothex'),
      // From the future (issue 20): as far ahead as the tolerance allows behind.
      await stripe.send(endpoint, payload, stripe.signature(payload, now + 301)),
      await stripe.send(endpoint, payload, stripe.signature(payload, now + 86_400)),
    ];
    expect(attempts.map((a) => a.status)).toEqual([400, 400, 400, 400, 400, 400, 400]);
    expect(attempts[5]!.body).toMatch(/future/);
    for (const a of attempts) expect(a.body).not.toMatch(/whsec|stack|at /);
    expect((await subscription(c)).tariffKey).toBe('free-plan');
    expect(await paymentRow(data.paymentId)).toMatchObject({ status: 'pending', applied: false });
    expect(await eventsOf(data.paymentId)).toBe(0);
    // A signed event without data.object (hand-made, or an unknown shape) is a clear 400, not a 500.
    for (const odd of [
      { id: 'evt_x', object: 'event', type: 'payment_intent.succeeded', data: {} },
      { id: 'evt_y', object: 'event', type: 'charge.refunded' },
      { id: 'evt_z', object: 'event', type: 'x', data: { object: null } },
    ]) {
      const body = JSON.stringify(odd);
      const res = await stripe.send(endpoint, body, stripe.signature(body));
      expect(res.status, res.body).toBe(400);
      expect(res.body).toMatch(/data\.object/);
    }
    // 299 seconds old is still inside the tolerance: the same event then applies.
    expect((await stripe.send(endpoint, payload, stripe.signature(payload, now - 299))).status).toBe(200);
    expect((await subscription(c)).tariffKey).toBe('1-month');
  });

  it('replays (3 in a row, 10 at once) extend exactly once', async () => {
    const { c } = await customer();
    const { pi } = await checkout(c);
    const payload = stripe.pay(pi.id);
    for (let i = 0; i < 3; i++) expect((await stripe.send(endpoint, payload)).status).toBe(200);
    const once = (await subscription(c)).expiresAt;
    const burst = await Promise.all(Array.from({ length: 10 }, () => stripe.send(endpoint, payload)));
    expect(burst.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect((await subscription(c)).expiresAt).toBe(once);
    expect(Math.abs(new Date(once!).getTime() - (Date.now() + 30 * 86_400_000))).toBeLessThan(60_000);
  });

  it('a refund seen before the success converges on refunded with no extension', async () => {
    const { c, user } = await customer();
    const { data, pi } = await checkout(c);
    const succeeded = stripe.pay(pi.id);
    const refunded = stripe.refund(pi.id);
    expect((await stripe.send(endpoint, refunded)).status).toBe(200);
    expect((await stripe.send(endpoint, succeeded)).status).toBe(200);
    expect(await paymentRow(data.paymentId)).toMatchObject({ status: 'refunded', applied: false });
    expect((await subscription(c)).tariffKey).toBe('free-plan');
    const [u] = await t.app.db.query<{ account_status: string }>('select account_status from users where id = $1', [
      user.id,
    ]);
    expect(u!.account_status).not.toBe('Active');
  });

  it('20 concurrent checkouts with one idempotency key make one Checkout Session at Stripe', async () => {
    const { c } = await customer();
    const before = stripe.createdCount();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        c.post('/api/billing/createPayment', {
          tariffId: 3,
          currency: 'USD',
          provider: 'stripe',
          idempotencyKey: 'stripe-same-key-1',
        }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    expect(new Set(results.map((r) => r.json().data.paymentId)).size).toBe(1);
    expect(new Set(results.map((r) => r.json().data.clientSecret)).size).toBe(1);
    expect(stripe.createdCount() - before).toBe(1);
    // Stripe saw the key on every call that reached it: the repeats were idempotent replays.
    const keyed = stripe.requests.filter(
      (r) => r.method === 'POST' && r.headers['idempotency-key'] === results[0]!.json().data.paymentId,
    );
    expect(keyed.length).toBeGreaterThanOrEqual(1);
  });

  it('a webhook for a payment that is not ours is acknowledged and changes nothing', async () => {
    const pi = { id: 'pi_not_ours', object: 'payment_intent', metadata: {} };
    const payload = JSON.stringify({
      id: 'evt_not_ours',
      object: 'event',
      type: 'payment_intent.succeeded',
      data: { object: pi },
    });
    expect((await stripe.send(endpoint, payload)).status).toBe(200);
  });
});
