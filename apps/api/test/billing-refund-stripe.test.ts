import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeStripe, startFakeStripe } from './fakes/stripe.js';
import { TestClient, createTestApp, registerUser, subscriptionOf, type TestApp } from './helpers.js';

// Money-back from the dashboard through Stripe (issue 13): the refund is made at Stripe (the
// local fake speaks its REST protocol through the official SDK), once, and the plan follows.
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

async function paidWithStripe(flow: 'checkout' | 'embedded') {
  const c = new TestClient(t.app, { host: origin });
  await registerUser(c);
  let paymentId: string;
  let intent: string;
  if (flow === 'checkout') {
    const res = await c.post('/api/billing/createPayment', {
      tariffId: 2,
      currency: 'USD',
      provider: 'stripe',
      returnPath: '/zg/paymentEvent',
    });
    expect(res.statusCode, res.body).toBe(200);
    paymentId = res.json().data.paymentId;
    const session = [...stripe.sessions.values()].find((s) => s.metadata.merchant_ref === paymentId)!;
    expect((await stripe.send(endpoint, stripe.paySession(session.id))).status).toBe(200);
    intent = stripe.sessions.get(session.id)!.payment_intent!;
  } else {
    const res = await c.get('/api/billing/getStripePayment?tariffId=2&currency=USD');
    expect(res.statusCode, res.body).toBe(200);
    paymentId = res.json().data.paymentId;
    const pi = [...stripe.intents.values()].find((p) => p.metadata.merchant_ref === paymentId)!;
    expect((await stripe.send(endpoint, stripe.pay(pi.id))).status).toBe(200);
    intent = pi.id;
  }
  expect((await subscriptionOf(c)).tariffKey).toBe('1-month');
  return { c, paymentId, intent };
}

describe('money-back through Stripe', () => {
  for (const flow of ['checkout', 'embedded'] as const) {
    it(`refunds a ${flow} payment at Stripe once, under parallel requests, and the plan follows at once`, async () => {
      const { c, paymentId, intent } = await paidWithStripe(flow);
      const listed = (await c.get('/api/billing/payments')).json().data.items[0];
      expect(listed).toMatchObject({ paymentId, provider: 'stripe', refundAvailable: true });
      const before = stripe.refundCount();
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => c.post(`/api/billing/payments/${paymentId}/refund`, {})),
      );
      expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409, 409, 409]);
      expect(stripe.refundCount() - before).toBe(1);
      expect((await subscriptionOf(c)).tariffKey).toBe('free-plan');
      // Stripe's own refund event arriving later changes nothing more.
      expect((await stripe.send(endpoint, stripe.refund(intent))).status).toBe(200);
      expect((await subscriptionOf(c)).tariffKey).toBe('free-plan');
      const rows = await t.app.db.query<{ status: string }>('select status from payments where public_id = $1', [
        paymentId,
      ]);
      expect(rows).toEqual([{ status: 'refunded' }]);
    });
  }
});
