import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SubscriptionInfo } from '@warren/contract';
import { type FakePayssion, startFakePayssion } from './fakes/payssion.js';
import { type FakeStripe, startFakeStripe } from './fakes/stripe.js';
import { TestClient, createTestApp, mailTo, registerUser, type TestApp } from './helpers.js';
import { dropJobsSchema } from './jobs-helpers.js';

/**
 * Renewals through real provider protocols against the local fakes: Stripe off-session
 * PaymentIntents on the card saved at checkout (setup_future_usage), a declined card (retried)
 * and an expired one (never again); Payssion v2 charges on the mandate, and a mandate the
 * provider no longer honours (440: never again).
 */
const STRIPE_KEY = 'sk_test_fake_renewals_0123';
const STRIPE_WHSEC = 'whsec_test_fake_renewals_0123456789';
const PAYSSION_KEY = 'payssion-api-key-renewals';
const PAYSSION_SECRET = 'payssion-secret-renewals';
const DAY = 86_400_000;

let t: TestApp;
let stripe: FakeStripe;
let payssion: FakePayssion;
let origin: string;

beforeAll(async () => {
  stripe = await startFakeStripe({ secretKey: STRIPE_KEY, webhookSecret: STRIPE_WHSEC });
  payssion = await startFakePayssion({ apiKey: PAYSSION_KEY, secretKey: PAYSSION_SECRET });
  t = await createTestApp({
    JOBS: 'false',
    STRIPE_SECRET_KEY: STRIPE_KEY,
    STRIPE_PUBLISHABLE_KEY: 'pk_test_fake_renewals',
    STRIPE_WEBHOOK_SECRET: STRIPE_WHSEC,
    STRIPE_API_URL: stripe.url,
    PAYSSION_API_KEY: PAYSSION_KEY,
    PAYSSION_SECRET_KEY: PAYSSION_SECRET,
    PAYSSION_API_URL: payssion.url,
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t?.close();
  await dropJobsSchema(t);
  await stripe?.close();
  await payssion?.close();
});

async function customer() {
  const c = new TestClient(t.app, { host: origin });
  const { user } = await registerUser(c);
  return { c, user: user as { id: number; email: string } };
}
const sub = async (c: TestClient) => (await c.get('/api/billing/subscription')).json().data as SubscriptionInfo;
const renewalsOf = (userId: number) =>
  t.app.db.query<{ status: string; provider_ref: string | null; failure_reason: string | null; amount_minor: number }>(
    `select status, provider_ref, failure_reason, amount_minor from payments where user_id = $1 and kind = 'renewal' order by id`,
    [userId],
  );
const passFor = async (userId: number, asOf: Date) =>
  (await t.app.services.jobs.runPass(asOf)).renewals.filter((r) => r.userId === userId);

describe('Stripe: changing the card (issue 23)', () => {
  it('Checkout in setup mode for the renewal customer, nothing charged; the renewal charges the new card', async () => {
    const { c, user } = await customer();
    const res = await c.post('/api/billing/createPayment', {
      tariffId: 2,
      currency: 'USD',
      provider: 'stripe',
      returnPath: '/thank-you',
      autoRenew: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    const session = [...stripe.sessions.values()].find((s) => s.metadata.merchant_ref === res.json().data.paymentId)!;
    await stripe.send(`http://${origin}/api/billing/webhooks/stripe`, stripe.paySession(session.id));
    expect(await sub(c)).toMatchObject({ canUpdateMethod: true, paymentMethod: { label: 'Visa •••• 4242' } });
    const [before] = await t.app.db.query<{ customer_ref: string; method_ref: string }>(
      'select customer_ref, method_ref from subscription_renewals where user_id = $1',
      [user.id],
    );
    const createdBefore = stripe.createdCount();
    const start = await c.post('/api/billing/subscription/paymentMethod/update', {});
    expect(start.statusCode, start.body).toBe(200);
    const setup = stripe.requests.findLast((r) => r.method === 'POST' && r.path === '/v1/checkout/sessions')!;
    expect(setup.form.get('mode')).toBe('setup');
    expect(setup.form.get('customer')).toBe(before!.customer_ref);
    expect(stripe.createdCount()).toBe(createdBefore); // no payment
    const csId = new URL(start.json().data.redirectUrl).pathname.split('/').pop()!;
    // Back before saving: nothing changes.
    expect((await c.post('/api/billing/subscription/paymentMethod/confirm', {})).statusCode).toBe(409);
    const pm = stripe.completeSetup(csId);
    const done = await c.post('/api/billing/subscription/paymentMethod/confirm', {});
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().data.paymentMethod).toEqual({ provider: 'stripe', label: 'Mastercard •••• 0005' });
    const [after] = await t.app.db.query<{ customer_ref: string; method_ref: string }>(
      'select customer_ref, method_ref from subscription_renewals where user_id = $1',
      [user.id],
    );
    expect(after).toEqual({ customer_ref: before!.customer_ref, method_ref: pm });
    // The old card is detached from the customer at Stripe (POST /v1/payment_methods/:id/detach); the new one stays.
    expect(
      stripe.requests.filter(
        (r) => r.method === 'POST' && r.path === `/v1/payment_methods/${before!.method_ref}/detach`,
      ),
    ).toHaveLength(1);
    expect(stripe.paymentMethods.get(before!.method_ref)?.customer).toBeNull();
    expect(stripe.paymentMethods.get(pm)?.customer).toBe(before!.customer_ref);
    // The renewal charges the new card off-session.
    const until = new Date((await sub(c)).paidUntil!);
    expect((await passFor(user.id, new Date(until.getTime() - 2 * DAY)))[0]?.outcome).toBe('renewed');
    const charge = stripe.requests.findLast((r) => r.method === 'POST' && r.path === '/v1/payment_intents')!;
    expect(charge.form.get('payment_method')).toBe(pm);
  });
});

describe('Stripe: the old card after a card change', () => {
  const detachesOf = (methodRef: string) =>
    t.app.db.query<{ attempts: number; next_at: Date | null; last_error: string }>(
      'select attempts, next_at, last_error from payment_method_detaches where method_ref = $1',
      [methodRef],
    );

  it('Stripe down at the detach: the new card is kept, the detach waits and the pass makes it later', async () => {
    const { c, user } = await customer();
    const res = await c.post('/api/billing/createPayment', {
      tariffId: 2,
      currency: 'USD',
      provider: 'stripe',
      returnPath: '/thank-you',
      autoRenew: true,
    });
    const session = [...stripe.sessions.values()].find((s) => s.metadata.merchant_ref === res.json().data.paymentId)!;
    await stripe.send(`http://${origin}/api/billing/webhooks/stripe`, stripe.paySession(session.id));
    const [before] = await t.app.db.query<{ method_ref: string }>(
      'select method_ref from subscription_renewals where user_id = $1',
      [user.id],
    );
    const start = await c.post('/api/billing/subscription/paymentMethod/update', {});
    const pm = stripe.completeSetup(new URL(start.json().data.redirectUrl).pathname.split('/').pop()!, '1881');
    stripe.failDetaches(1000);
    const done = await c.post('/api/billing/subscription/paymentMethod/confirm', {});
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().data.paymentMethod).toEqual({ provider: 'stripe', label: 'Mastercard •••• 1881' });
    expect(stripe.paymentMethods.get(before!.method_ref)?.customer).not.toBeNull();
    const [queued] = await detachesOf(before!.method_ref);
    expect(queued).toMatchObject({ attempts: 1, last_error: expect.stringMatching(/unknown error/) });
    const firstTry = new Date(queued!.next_at!);

    // Still down at the first retry: tried again later (backoff), nothing else changes.
    await t.app.services.jobs.runPass(firstTry);
    const [again] = await detachesOf(before!.method_ref);
    expect(again!.attempts).toBe(2);
    expect(new Date(again!.next_at!).getTime()).toBe(firstTry.getTime() + 3_600_000);
    // Not due yet: not tried.
    const calls = stripe.requests.filter((r) => r.path.endsWith('/detach')).length;
    await t.app.services.jobs.runPass(new Date(firstTry.getTime() + 60_000));
    expect(stripe.requests.filter((r) => r.path.endsWith('/detach')).length).toBe(calls);

    // Stripe is back: the next pass detaches it and the note goes.
    stripe.failDetaches(0);
    await t.app.services.jobs.runPass(new Date(again!.next_at!));
    expect(stripe.paymentMethods.get(before!.method_ref)?.customer).toBeNull();
    expect(await detachesOf(before!.method_ref)).toEqual([]);
    const [renewal] = await t.app.db.query<{ method_ref: string }>(
      'select method_ref from subscription_renewals where user_id = $1',
      [user.id],
    );
    expect(renewal!.method_ref).toBe(pm);
    // Out of the later tests' renewal passes (they count every charge the fake makes).
    expect((await c.post('/api/billing/subscription/autoRenew', { enabled: false })).statusCode).toBe(200);
  });
});

describe('Stripe renewals', () => {
  it('Checkout saves the card; the renewal is an off-session charge, once; a decline is retried; an expired card is never tried again', async () => {
    const { c, user } = await customer();
    const res = await c.post('/api/billing/createPayment', {
      tariffId: 2,
      currency: 'USD',
      provider: 'stripe',
      returnPath: '/thank-you',
      autoRenew: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    const session = [...stripe.sessions.values()].find((s) => s.metadata.merchant_ref === res.json().data.paymentId)!;
    // Asked Stripe to keep the card for off-session use, with a customer.
    const created = stripe.requests.find(
      (r) =>
        r.method === 'POST' &&
        r.path === '/v1/checkout/sessions' &&
        r.form.get('client_reference_id') === res.json().data.paymentId,
    )!;
    expect(created.form.get('payment_intent_data[setup_future_usage]')).toBe('off_session');
    expect(created.form.get('customer_creation')).toBe('always');
    expect(
      (await stripe.send(`http://${origin}/api/billing/webhooks/stripe`, stripe.paySession(session.id))).status,
    ).toBe(200);

    let s = await sub(c);
    expect(s).toMatchObject({
      status: 'active',
      autoRenew: true,
      canAutoRenew: true,
      paymentMethod: { provider: 'stripe', label: 'Visa •••• 4242' },
      nextCharge: { amountMinor: 1299, currency: 'USD' },
    });
    const [state] = await t.app.db.query<{ customer_ref: string; method_ref: string }>(
      'select customer_ref, method_ref from subscription_renewals where user_id = $1',
      [user.id],
    );
    expect(state).toMatchObject({
      customer_ref: expect.stringMatching(/^cus_/),
      method_ref: expect.stringMatching(/^pm_/),
    });

    // The renewal: an off-session PaymentIntent on the saved card, with an idempotency key; twice → one.
    const paidUntil = new Date(s.paidUntil!);
    const asOf = new Date(paidUntil.getTime() - 3 * DAY + 60_000);
    const before = stripe.createdCount();
    await Promise.all([passFor(user.id, asOf), passFor(user.id, asOf)]);
    expect(stripe.createdCount() - before).toBe(1);
    const charge = stripe.requests
      .filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents' && r.form.get('off_session') === 'true')
      .at(-1)!;
    expect(charge.form.get('customer')).toBe(state!.customer_ref);
    expect(charge.form.get('payment_method')).toBe(state!.method_ref);
    expect(charge.form.get('confirm')).toBe('true');
    expect(charge.form.get('amount')).toBe('1299');
    expect(charge.headers['idempotency-key']).toMatch(/^renewal_pay_/);
    expect(await renewalsOf(user.id)).toEqual([
      expect.objectContaining({ status: 'succeeded', provider_ref: expect.stringMatching(/^pi_/) }),
    ]);
    s = await sub(c);
    expect(new Date(s.paidUntil!).getTime()).toBe(paidUntil.getTime() + 30 * DAY);

    // Declined (insufficient funds): failed attempt with Stripe's message, retried a day later.
    const next = new Date(s.paidUntil!);
    stripe.setCard(state!.method_ref, 'decline');
    expect(await passFor(user.id, new Date(next.getTime() - 3 * DAY + 60_000))).toEqual([
      expect.objectContaining({ outcome: 'failed', error: 'Your card has insufficient funds.' }),
    ]);
    s = await sub(c);
    expect(s).toMatchObject({
      canAutoRenew: true,
      autoRenew: true,
      lastRenewalError: 'Your card has insufficient funds.',
    });
    const mails = await mailTo(c, t.app, user.email);
    expect(mails.find((m) => m.subject.includes('could not renew'))!.text).toContain(
      'Your card has insufficient funds.',
    );

    // The retry meets an expired card: reported unusable, never tried again.
    stripe.setCard(state!.method_ref, 'expired');
    expect(await passFor(user.id, new Date(next.getTime() - 2 * DAY + 60_000))).toEqual([
      expect.objectContaining({ outcome: 'failed', error: 'Your card has expired.' }),
    ]);
    const count = stripe.createdCount();
    expect(await passFor(user.id, new Date(next.getTime() - 60_000))).toEqual([]);
    expect(stripe.createdCount()).toBe(count);
    s = await sub(c);
    expect(s).toMatchObject({ canAutoRenew: false, autoRenew: false, paymentMethod: null });
    expect((await renewalsOf(user.id)).map((p) => p.status)).toEqual(['succeeded', 'failed', 'failed']);
  });

  it('a card whose bank asks for confirmation (SCA) fails the renewal at once, says why, keeps the card, and a later charge may pass', async () => {
    const { c, user } = await customer();
    const res = await c.post('/api/billing/createPayment', {
      tariffId: 2,
      currency: 'USD',
      provider: 'stripe',
      returnPath: '/thank-you',
      autoRenew: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    const session = [...stripe.sessions.values()].find((x) => x.metadata.merchant_ref === res.json().data.paymentId)!;
    expect(
      (await stripe.send(`http://${origin}/api/billing/webhooks/stripe`, stripe.paySession(session.id))).status,
    ).toBe(200);
    const [state] = await t.app.db.query<{ method_ref: string }>(
      'select method_ref from subscription_renewals where user_id = $1',
      [user.id],
    );
    const paidUntil = new Date((await sub(c)).paidUntil!);

    stripe.setCard(state!.method_ref, 'sca');
    const [first] = await passFor(user.id, new Date(paidUntil.getTime() - 3 * DAY + 60_000));
    // Not "pending" forever: nothing off-session could ever complete it.
    expect(first).toMatchObject({
      outcome: 'failed',
      error: expect.stringContaining('Your bank asks you to confirm this payment yourself'),
    });
    let s = await sub(c);
    expect(s).toMatchObject({
      autoRenew: true,
      canAutoRenew: true,
      paymentMethod: { provider: 'stripe' },
      lastRenewalError: expect.stringContaining('pay by hand'),
    });
    const mail = (await mailTo(c, t.app, user.email)).find((m) => m.subject.includes('could not renew'))!;
    expect(mail.text).toContain('Your bank asks you to confirm this payment yourself');

    // The retry a day later: the bank lets it through this time.
    stripe.setCard(state!.method_ref, 'ok');
    expect(await passFor(user.id, new Date(paidUntil.getTime() - 2 * DAY + 60_000))).toEqual([
      expect.objectContaining({ outcome: 'renewed' }),
    ]);
    s = await sub(c);
    expect(new Date(s.paidUntil!).getTime()).toBe(paidUntil.getTime() + 30 * DAY);
    expect((await renewalsOf(user.id)).map((p) => p.status)).toEqual(['failed', 'succeeded']);
  });

  it('the embedded PaymentIntent flow saves the card on a customer too; a payment without auto-renew saves nothing', async () => {
    const { c } = await customer();
    const res = await c.get('/api/billing/getStripePayment?tariffId=2&currency=USD');
    expect(res.statusCode, res.body).toBe(200);
    const pi = [...stripe.intents.values()].find((p) => p.metadata.merchant_ref === res.json().data.paymentId)!;
    expect(pi).toMatchObject({ setup_future_usage: 'off_session', customer: expect.stringMatching(/^cus_/) });
    await stripe.send(`http://${origin}/api/billing/webhooks/stripe`, stripe.pay(pi.id));
    expect(await sub(c)).toMatchObject({
      autoRenew: true,
      paymentMethod: { provider: 'stripe', label: 'Visa •••• 4242' },
    });

    const o = await customer();
    const off = await o.c.post('/api/billing/createPayment', {
      tariffId: 2,
      currency: 'USD',
      provider: 'stripe',
      returnPath: '/thank-you',
      autoRenew: false,
    });
    const created = stripe.requests.find(
      (r) =>
        r.method === 'POST' &&
        r.path === '/v1/checkout/sessions' &&
        r.form.get('client_reference_id') === off.json().data.paymentId,
    )!;
    expect(created.form.get('payment_intent_data[setup_future_usage]')).toBeNull();
    const session = [...stripe.sessions.values()].find((s) => s.metadata.merchant_ref === off.json().data.paymentId)!;
    await stripe.send(`http://${origin}/api/billing/webhooks/stripe`, stripe.paySession(session.id));
    expect(await sub(o.c)).toMatchObject({
      status: 'active',
      autoRenew: false,
      canAutoRenew: false,
      paymentMethod: null,
    });
    // The embedded flow takes the choice in its query string.
    const q = await customer();
    const embedded = await q.c.get('/api/billing/getStripePayment?tariffId=2&currency=USD&autoRenew=false');
    expect(embedded.statusCode, embedded.body).toBe(200);
    expect(
      [...stripe.intents.values()].find((p) => p.metadata.merchant_ref === embedded.json().data.paymentId),
    ).toMatchObject({ setup_future_usage: null, customer: null });
    expect((await q.c.get('/api/billing/getStripePayment?tariffId=2&currency=USD&autoRenew=maybe')).statusCode).toBe(
      422,
    );
  });
});

describe('Payssion v2 renewals', () => {
  it('charges the mandate with no page, once; a mandate the provider no longer honours is never tried again', async () => {
    const { c, user } = await customer();
    const res = await c.post('/api/billing/getPayssionV2MandateOrDoPayment', { tariffId: 2, currency: 'USD' });
    expect(res.statusCode, res.body).toBe(200);
    const tx = payssion.byOrder(res.json().data.paymentId)!;
    expect((await payssion.notify(tx.transaction_id, payssion.complete(tx.transaction_id))).status).toBe(200);
    let s = await sub(c);
    expect(s).toMatchObject({
      status: 'active',
      autoRenew: true,
      canAutoRenew: true,
      paymentMethod: { provider: 'payssionv2', label: 'Payssion' },
    });

    const paidUntil = new Date(s.paidUntil!);
    const asOf = new Date(paidUntil.getTime() - 3 * DAY + 60_000);
    await Promise.all([passFor(user.id, asOf), passFor(user.id, asOf)]);
    const charges = payssion.requests.filter((r) => r.path === '/api/v2/payment/create');
    expect(charges).toHaveLength(1);
    expect(charges[0]!.form.get('mandate_id')).toBe(tx.mandate_id);
    expect(charges[0]!.form.get('amount')).toBe('12.99');
    expect(await renewalsOf(user.id)).toEqual([expect.objectContaining({ status: 'succeeded' })]);
    s = await sub(c);
    expect(new Date(s.paidUntil!).getTime()).toBe(paidUntil.getTime() + 30 * DAY);

    // The customer withdrew the agreement at the provider: 440, the mandate is revoked, no retry.
    payssion.revokeMandate(tx.mandate_id!);
    const next = new Date(s.paidUntil!);
    expect(await passFor(user.id, new Date(next.getTime() - 3 * DAY + 60_000))).toEqual([
      expect.objectContaining({ outcome: 'failed', error: 'The payment agreement (mandate) is no longer valid.' }),
    ]);
    expect(await passFor(user.id, new Date(next.getTime() - 1 * DAY))).toEqual([]);
    expect(payssion.requests.filter((r) => r.path === '/api/v2/payment/create')).toHaveLength(2);
    s = await sub(c);
    expect(s).toMatchObject({ canAutoRenew: false, autoRenew: false, paymentMethod: null });
    const [mandate] = await t.app.db.query<{ status: string }>(
      'select status from payment_mandates where mandate_id = $1',
      [tx.mandate_id],
    );
    expect(mandate!.status).toBe('revoked');
  });
});
