import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DesiredState, SubscriptionInfo } from '@warren/contract';
import { addLocation, addNode } from '../src/modules/nodes/admin.js';
import { TestClient, createTestApp, mailTo, registerUser, type TestApp } from './helpers.js';
import { dropJobsSchema } from './jobs-helpers.js';

/**
 * A subscription's whole life on the sandbox provider, moved through time with the renewal pass
 * (`warren billing renew-due --as-of` runs the same jobs.runPass): buy monthly with auto-renew →
 * reminder → renewal charged once (the pass twice, and twice at once) → receipt → a declined
 * renewal → its retry → the plan ends → the VPN peer goes from the nodes' desired state.
 */
let t: TestApp;
let nodeToken: string;
beforeAll(async () => {
  t = await createTestApp({ JOBS: 'false' });
  await addLocation(t.app.db, {
    slug: 'rn-test',
    countryCode: 'XX',
    country: { en: 'Renewland', ru: 'Ренюленд', zh: '续订' },
    city: { en: 'Lab', ru: 'Лаб', zh: '实验室' },
    latitude: 0,
    longitude: 0,
    premium: true,
  });
  nodeToken = (await addNode(t.app.db, { location: 'rn-test', name: 'rn-test-1', endpointHost: '198.51.100.9' })).token;
});
afterAll(async () => {
  await t?.close();
  await dropJobsSchema(t);
});

const DAY = 86_400_000;
const wgKey = () =>
  generateKeyPairSync('x25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
const pass = (asOf: Date) => t.app.services.jobs.runPass(asOf);
const sub = async (c: TestClient) => {
  const res = await c.get('/api/billing/subscription');
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as SubscriptionInfo;
};
const desiredKeys = async () => {
  const res = await t.app.inject({
    method: 'GET',
    url: '/api/nodes/desired',
    headers: { authorization: `Bearer ${nodeToken}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().data as DesiredState).peers.map((p) => p.publicKey);
};
const paymentsOf = (userId: number) =>
  t.app.db.query<{
    public_id: string;
    kind: string;
    status: string;
    amount_minor: number;
    failure_reason: string | null;
    idempotency_key: string;
  }>(
    'select public_id, kind, status, amount_minor, failure_reason, idempotency_key from payments where user_id = $1 order by id',
    [userId],
  );

async function buyWithSandbox(c: TestClient, body: Record<string, unknown>) {
  const res = await c.post('/api/billing/createPayment', {
    tariffId: 2,
    currency: 'USD',
    provider: 'sandbox',
    returnPath: '/thank-you',
    ...body,
  });
  expect(res.statusCode, res.body).toBe(200);
  const sandboxId = new URL(res.json().data.redirectUrl as string).pathname.split('/').pop()!;
  // The hosted page says when the card is kept for renewals.
  const page = await t.app.inject({ method: 'GET', url: `/sandbox/checkout/${sandboxId}` });
  expect(page.body.includes('data-testid="saves-card"')).toBe(body.autoRenew === true && body.tariffId !== 5);
  const done = await t.app.inject({
    method: 'POST',
    url: `/sandbox/checkout/${sandboxId}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'outcome=pay',
  });
  expect(done.statusCode).toBe(200);
}

async function member() {
  const c = new TestClient(t.app);
  const { user } = await registerUser(c);
  await t.app.db.query(`update users set verified = true, account_status = 'Active' where id = $1`, [user.id]);
  return { c, user: user as { id: number; email: string } };
}

describe('a monthly plan on the sandbox, renewing', () => {
  it('lives its whole life: reminder, one renewal, receipt, declines and retries, the end, and the VPN peer goes', async () => {
    const { c, user } = await member();
    await buyWithSandbox(c, { autoRenew: true });
    let s = await sub(c);
    expect(s).toMatchObject({
      status: 'active',
      autoRenew: true,
      canAutoRenew: true,
      plan: { tariffKey: '1-month', lifetime: false },
      nextCharge: { amountMinor: 1299, currency: 'USD' },
      paymentMethod: { provider: 'sandbox', label: 'Sandbox Visa •••• 4242' },
      lastRenewalError: null,
    });
    const paidUntil = new Date(s.paidUntil!);
    expect(new Date(s.renewsAt!).getTime()).toBe(paidUntil.getTime() - 3 * DAY);
    // Card data never stored: only the sandbox's card reference and its label.
    const [state] = await t.app.db.query<Record<string, unknown>>(
      'select * from subscription_renewals where user_id = $1',
      [user.id],
    );
    expect(state).toMatchObject({
      provider: 'sandbox',
      method_ref: expect.stringMatching(/^card_/),
      method_label: 'Sandbox Visa •••• 4242',
      price_list: 'default',
    });

    const device = wgKey();
    expect((await c.post('/api/setup/wg/devices/add', { name: 'Laptop', publicKey: device })).statusCode).toBe(201);
    expect(await desiredKeys()).toContain(device);

    // Nothing is due a week before: no mail, no charge.
    let r = await pass(new Date(paidUntil.getTime() - 7 * DAY));
    expect(r).toMatchObject({ reminders: 0, renewals: [], ended: [] });

    // The reminder: 3 days before the charge (monthly), once.
    r = await pass(new Date(paidUntil.getTime() - 6 * DAY + 3600_000));
    expect(r.reminders).toBe(1);
    expect((await pass(new Date(paidUntil.getTime() - 5 * DAY))).reminders).toBe(0);
    let mails = await mailTo(c, t.app, user.email);
    const reminder = mails.filter((m) => m.subject.includes('renews on'));
    expect(reminder).toHaveLength(1);
    expect(reminder[0]!.text).toContain('12.99 USD');
    expect(reminder[0]!.text).toContain('Sandbox Visa •••• 4242');
    expect(reminder[0]!.text).toMatch(/https?:\/\/[^\s]+\/subscription/);
    expect(reminder[0]!.text).not.toMatch(/unsubscribe/i);

    // The renewal: due 3 days ahead. The pass twice in a row, then twice at once: one charge.
    const dueAt = new Date(paidUntil.getTime() - 3 * DAY + 60_000);
    r = await pass(dueAt);
    expect(r.renewals).toEqual([expect.objectContaining({ userId: user.id, outcome: 'renewed' })]);
    expect((await pass(dueAt)).renewals).toEqual([]);
    await Promise.all([pass(dueAt), pass(dueAt), pass(new Date(dueAt.getTime() + 1000))]);
    let payments = await paymentsOf(user.id);
    expect(payments.filter((p) => p.kind === 'renewal')).toEqual([
      expect.objectContaining({ status: 'succeeded', amount_minor: 1299 }),
    ]);
    s = await sub(c);
    const renewedUntil = new Date(s.paidUntil!);
    expect(renewedUntil.getTime()).toBe(paidUntil.getTime() + 30 * DAY);
    expect(s).toMatchObject({ status: 'active', autoRenew: true, lastRenewalError: null });
    // The sandbox's own webhooks for the renewal charge, delivered late and twice: nothing more happens.
    const late = await t.app.services.sandbox!.undelivered();
    expect(late.some(({ event }) => event.type === 'payment.paid')).toBe(true);
    for (const { event } of late) {
      const { body, signature } = t.app.services.sandbox!.signedDelivery(event);
      for (let i = 0; i < 2; i++) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/billing/webhooks/sandbox',
          headers: { 'content-type': 'application/json', 'sandbox-signature': signature },
          payload: body,
        });
        expect(res.statusCode).toBe(200);
      }
    }
    expect((await sub(c)).paidUntil).toBe(renewedUntil.toISOString());
    mails = await mailTo(c, t.app, user.email);
    expect(mails.filter((m) => m.subject.includes('receipt'))).toHaveLength(2); // the purchase and the renewal
    expect(
      mails.find((m) => m.subject.includes('receipt') && m.text.includes(renewedUntil.toISOString().slice(0, 10)))!
        .text,
    ).toMatch(/\/subscription/);

    // The next period: the card declines. A failed attempt, a mail with the pay-by-hand link, a retry a day later.
    const card = state!.method_ref as string;
    await t.app.services.sandbox!.setCard(card, { declineNext: true });
    const due2 = new Date(renewedUntil.getTime() - 3 * DAY + 60_000);
    r = await pass(due2);
    expect(r.renewals).toEqual([
      expect.objectContaining({ outcome: 'failed', error: 'The card was declined (sandbox).' }),
    ]);
    expect((await pass(new Date(due2.getTime() + 3600_000))).renewals).toEqual([]); // the retry is not due yet
    s = await sub(c);
    expect(s).toMatchObject({
      autoRenew: true,
      lastRenewalError: 'The card was declined (sandbox).',
      paidUntil: renewedUntil.toISOString(),
    });
    mails = await mailTo(c, t.app, user.email);
    const failed = mails.filter((m) => m.subject.includes('could not renew'));
    expect(failed).toHaveLength(1);
    expect(failed[0]!.text).toContain(new Date(renewedUntil.getTime() - 2 * DAY).toISOString().slice(0, 10)); // the retry's day
    expect(failed[0]!.text).toMatch(/\/subscription/);

    // The retries (RENEWAL_RETRY_DAYS: 1 and 2 days later, both before the plan ends) decline too.
    await t.app.services.sandbox!.setCard(card, { declineNext: true });
    r = await pass(new Date(due2.getTime() + DAY));
    expect(r.renewals).toEqual([expect.objectContaining({ outcome: 'failed' })]);
    mails = await mailTo(c, t.app, user.email);
    expect(mails.filter((m) => m.subject.includes('could not renew'))).toHaveLength(2);
    expect(mails.filter((m) => m.subject.includes('could not renew'))[1]!.text).toContain(
      new Date(renewedUntil.getTime() - 1 * DAY).toISOString().slice(0, 10),
    ); // the next retry's day
    await t.app.services.sandbox!.setCard(card, { declineNext: true });
    r = await pass(new Date(due2.getTime() + 2 * DAY));
    expect(r.renewals).toEqual([expect.objectContaining({ outcome: 'failed' })]);
    expect((await pass(new Date(renewedUntil.getTime() - 60_000))).renewals).toEqual([]);
    mails = await mailTo(c, t.app, user.email);
    expect(mails.filter((m) => m.subject.includes('could not renew'))).toHaveLength(3);
    expect(mails.filter((m) => m.subject.includes('could not renew'))[2]!.text).toContain('that was the last try');
    payments = await paymentsOf(user.id);
    expect(payments.filter((p) => p.kind === 'renewal').map((p) => p.status)).toEqual([
      'succeeded',
      'failed',
      'failed',
      'failed',
    ]);
    expect(new Set(payments.map((p) => p.idempotency_key)).size).toBe(payments.length);

    // The plan ends: the "ended" mail once, the free plan, and the node no longer lists the device.
    r = await pass(new Date(renewedUntil.getTime() + 60_000));
    expect(r.ended).toEqual([user.id]);
    expect((await pass(new Date(renewedUntil.getTime() + 120_000))).ended).toEqual([]);
    s = await sub(c);
    expect(s).toMatchObject({
      status: 'expired',
      autoRenew: false,
      canAutoRenew: false,
      renewsAt: null,
      nextCharge: null,
    });
    mails = await mailTo(c, t.app, user.email);
    expect(mails.filter((m) => m.subject.includes('has ended'))).toHaveLength(1);
    expect(await desiredKeys()).not.toContain(device);
  });

  it('a card reported lost is not tried again; turning auto-renew off stops the charge; a purchase without auto-renew saves no card', async () => {
    const { c, user } = await member();
    await buyWithSandbox(c, { autoRenew: true });
    const paidUntil = new Date((await sub(c)).paidUntil!);
    const [state] = await t.app.db.query<{ method_ref: string }>(
      'select method_ref from subscription_renewals where user_id = $1',
      [user.id],
    );
    await t.app.services.sandbox!.setCard(state!.method_ref, { unusable: true });
    const r = await pass(new Date(paidUntil.getTime() - 3 * DAY + 60_000));
    expect(r.renewals.filter((x) => x.userId === user.id)).toEqual([
      expect.objectContaining({ outcome: 'failed', error: 'The card was reported lost (sandbox).' }),
    ]);
    expect((await pass(new Date(paidUntil.getTime() - 1 * DAY))).renewals.filter((x) => x.userId === user.id)).toEqual(
      [],
    );
    const s = await sub(c);
    expect(s).toMatchObject({ canAutoRenew: false, autoRenew: false, paymentMethod: null });
    expect((await c.post('/api/billing/subscription/autoRenew', { enabled: true })).statusCode).toBe(409);

    // Off before the charge: nothing is charged.
    const b = await member();
    await buyWithSandbox(b.c, { autoRenew: true });
    const until = new Date((await sub(b.c)).paidUntil!);
    const off = await b.c.post('/api/billing/subscription/autoRenew', { enabled: false });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().data).toMatchObject({ autoRenew: false, canAutoRenew: true, renewsAt: null, nextCharge: null });
    expect((await pass(new Date(until.getTime() - 2 * DAY))).renewals.filter((x) => x.userId === b.user.id)).toEqual(
      [],
    );
    expect((await paymentsOf(b.user.id)).filter((p) => p.kind === 'renewal')).toEqual([]);
    // And on again; twenty toggles at once end in one of the two states, never an error.
    expect((await b.c.post('/api/billing/subscription/autoRenew', { enabled: true })).json().data).toMatchObject({
      autoRenew: true,
    });
    const toggles = await Promise.all(
      Array.from({ length: 20 }, (_, i) => b.c.post('/api/billing/subscription/autoRenew', { enabled: i % 2 === 0 })),
    );
    expect(toggles.every((x) => x.statusCode === 200)).toBe(true);
    expect((await b.c.post('/api/billing/subscription/autoRenew', { enabled: true })).json().data).toMatchObject({
      autoRenew: true,
    });
    // A refund (money back) turns auto-renew off: the customer is not charged again unless they ask.
    const [purchase] = await paymentsOf(b.user.id);
    await t.app.services.billing.operator.refund(purchase!.public_id, { force: true });
    expect(await sub(b.c)).toMatchObject({ autoRenew: false });

    // Bought without auto-renew: the sandbox saves no card, so nothing can be turned on.
    const n = await member();
    await buyWithSandbox(n.c, { autoRenew: false });
    expect(await sub(n.c)).toMatchObject({
      status: 'active',
      autoRenew: false,
      canAutoRenew: false,
      paymentMethod: null,
    });
    const on = await n.c.post('/api/billing/subscription/autoRenew', { enabled: true });
    expect(on.statusCode).toBe(409);
    expect(on.json().message).toMatch(/cannot renew automatically/);
  });

  it('reminds a yearly plan 7 days before its renewal (3 days for a monthly one), and renews a special offer at the regular price', async () => {
    const { c, user } = await member();
    await buyWithSandbox(c, { tariffId: 3, autoRenew: true });
    const s = await sub(c);
    const renewsAt = new Date(s.renewsAt!).getTime();
    expect(s.nextCharge).toEqual({ amountMinor: 5999, currency: 'USD' });
    const mine = async (asOf: number) =>
      (await pass(new Date(asOf))).reminders > 0 &&
      (await mailTo(c, t.app, user.email)).some((m) => m.subject.includes('renews on'));
    expect(await mine(renewsAt - 8 * DAY)).toBe(false);
    expect(await mine(renewsAt - 7 * DAY + 60_000)).toBe(true);

    // The special offer (a year for 35.99 after a first month) renews at the regular 59.99.
    const o = await member();
    await buyWithSandbox(o.c, { tariffId: 2, autoRenew: true });
    await buyWithSandbox(o.c, { tariffId: 3, priceList: 'special-offer', autoRenew: true });
    const [offer] = await t.app.db.query<{ amount_minor: number }>(
      `select amount_minor from payments where user_id = $1 and price_list = 'special-offer' and status = 'succeeded'`,
      [o.user.id],
    );
    expect(offer!.amount_minor).toBe(3599);
    expect(await sub(o.c)).toMatchObject({
      plan: { tariffKey: '1-year' },
      nextCharge: { amountMinor: 5999, currency: 'USD' },
    });
  });

  it('support retries a failed renewal now (billing retry-renewal), once', async () => {
    const { c, user } = await member();
    await buyWithSandbox(c, { autoRenew: true });
    const paidUntil = new Date((await sub(c)).paidUntil!);
    const [state] = await t.app.db.query<{ method_ref: string }>(
      'select method_ref from subscription_renewals where user_id = $1',
      [user.id],
    );
    await t.app.services.sandbox!.setCard(state!.method_ref, { declineNext: true });
    const due = new Date(paidUntil.getTime() - 3 * DAY + 60_000);
    expect((await pass(due)).renewals.filter((r) => r.userId === user.id)).toEqual([
      expect.objectContaining({ outcome: 'failed' }),
    ]);
    const { renewals } = t.app.services.billing;
    const [a, b] = await Promise.all([
      renewals.retryNow(user.id, new Date(due.getTime() + 3600_000)),
      renewals.retryNow(user.id, new Date(due.getTime() + 3600_000)),
    ]);
    // Two support agents at once: one charge (the other finds it done or nothing due).
    expect([a.outcome, b.outcome]).toContain('renewed');
    expect((await paymentsOf(user.id)).filter((p) => p.kind === 'renewal').map((p) => p.status)).toEqual([
      'failed',
      'succeeded',
    ]);
    expect(new Date((await sub(c)).paidUntil!).getTime()).toBe(paidUntil.getTime() + 30 * DAY);
    await expect(renewals.retryNow(user.id, new Date(due.getTime() + 7200_000))).resolves.toMatchObject({
      outcome: 'not-due',
    });
  });

  it('answers free and lifetime members, and refuses bad bodies with field messages', async () => {
    const { c } = await member();
    expect(await sub(c)).toMatchObject({
      status: 'free',
      autoRenew: false,
      canAutoRenew: false,
      paidUntil: null,
      paymentMethod: null,
    });
    expect((await c.post('/api/billing/subscription/autoRenew', { enabled: true })).statusCode).toBe(409);
    const bad = await c.post('/api/billing/subscription/autoRenew', { enabled: 'yes' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors.enabled).toBeDefined();
    expect((await c.post('/api/billing/subscription/autoRenew', {})).statusCode).toBe(422);
    expect((await new TestClient(t.app).get('/api/billing/subscription', { auth: false })).statusCode).toBe(401);

    const l = await member();
    await buyWithSandbox(l.c, { tariffId: 5, autoRenew: true });
    const s = await sub(l.c);
    expect(s).toMatchObject({
      status: 'active',
      plan: { lifetime: true },
      paidUntil: null,
      autoRenew: false,
      canAutoRenew: false,
      renewsAt: null,
    });
    const on = await l.c.post('/api/billing/subscription/autoRenew', { enabled: true });
    expect(on.statusCode).toBe(409);
    expect(on.json().message).toMatch(/lifetime/i);
  });
});
