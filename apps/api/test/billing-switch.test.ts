import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SubscriptionInfo, SwitchOptions } from '@warren/contract';
import { TestClient, createTestApp, registerUser, type TestApp } from './helpers.js';
import { dropJobsSchema } from './jobs-helpers.js';
import { pdfText } from './pdf-text.js';
import { mailTo } from './helpers.js';

/**
 * Switching plans from /subscription (issue 23) through the real checkout path on the sandbox
 * provider: a month to a year now (the unused part credited, the difference charged, one period),
 * a year to a month at the next renewal (scheduled, cancellable, honoured by the renewal job),
 * and the attacks: parallel requests, webhook replays, switching twice, a renewal charged while a
 * switch is open, a checkout abandoned and paid a day later, bad input.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ JOBS: 'false' });
});
afterAll(async () => {
  await t?.close();
  await dropJobsSchema(t);
});

const DAY = 86_400_000;
const pass = (asOf: Date) => t.app.services.jobs.runPass(asOf);
const sub = async (c: TestClient) => {
  const res = await c.get('/api/billing/subscription');
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as SubscriptionInfo;
};
const options = async (c: TestClient) => {
  const res = await c.get('/api/billing/subscription/switch/options');
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as SwitchOptions;
};
const quoteOf = async (c: TestClient, key: string) =>
  (await options(c)).options.find((o) => o.tariffKey === key)!.quote;
const paymentsOf = (userId: number) =>
  t.app.db.query<{
    id: number;
    public_id: string;
    kind: string;
    status: string;
    applied: boolean;
    amount_minor: number;
    credit_minor: number | null;
    list_amount_minor: number | null;
    tariff_id: number;
    superseded_by: number | null;
    period_start: Date;
    period_end: Date | null;
  }>('select * from payments where user_id = $1 order by id', [userId]);
const userRow = async (id: number) =>
  (
    await t.app.db.query<{ tariff_key: string; subscription_expires_at: Date }>(
      'select tariff_key, subscription_expires_at from users where id = $1',
      [id],
    )
  )[0]!;

const sandboxIdOf = (redirectUrl: string) => new URL(redirectUrl).pathname.split('/').pop()!;
async function payPage(sandboxId: string, outcome: 'pay' | 'decline' = 'pay') {
  const done = await t.app.inject({
    method: 'POST',
    url: `/sandbox/checkout/${sandboxId}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `outcome=${outcome}`,
  });
  expect(done.statusCode).toBe(200);
  await t.app.settle();
}

async function member() {
  const c = new TestClient(t.app);
  const { user } = await registerUser(c);
  await t.app.db.query(`update users set verified = true, account_status = 'Active' where id = $1`, [user.id]);
  return { c, user: user as { id: number; email: string } };
}

/** A month bought with the sandbox (auto-renew on: the test card is kept), then moved `daysUsed` into its period. */
async function monthlyMember(daysUsed: number, currency = 'USD') {
  const m = await member();
  const res = await m.c.post('/api/billing/createPayment', {
    tariffId: 2,
    currency,
    provider: 'sandbox',
    autoRenew: true,
    returnPath: '/thank-you',
  });
  expect(res.statusCode, res.body).toBe(200);
  await payPage(sandboxIdOf(res.json().data.redirectUrl));
  await shift(m.user.id, daysUsed);
  return m;
}
/** Moves the member's whole plan `days` into the past (periods, paid-until and the renewal's schedule). */
async function shift(userId: number, days: number) {
  const ms = `${days * DAY} milliseconds`;
  await t.app.db.query(
    `update payments set period_start = period_start - $2::interval, period_end = period_end - $2::interval,
       paid_at = paid_at - $2::interval, created_at = created_at - $2::interval where user_id = $1`,
    [userId, ms],
  );
  await t.app.db.query(
    `update users set subscription_expires_at = subscription_expires_at - $2::interval where id = $1`,
    [userId, ms],
  );
  await t.app.db.query(
    `update subscription_renewals set period_end = period_end - $2::interval, renews_at = renews_at - $2::interval where user_id = $1`,
    [userId, ms],
  );
}
const startSwitch = (c: TestClient, body: Record<string, unknown>) =>
  c.post('/api/billing/subscription/switch', { provider: 'sandbox', ...body });

describe('a month to a year: now, with the unused part credited', () => {
  it('quotes, charges the difference once (parallel requests, replays), starts one new period', async () => {
    const { c, user } = await monthlyMember(15);
    const opts = await options(c);
    expect(opts).toMatchObject({ currentTariffKey: '1-month', currency: 'USD' });
    expect(opts.providers).toContain('sandbox');
    expect(opts.options.map((o) => o.tariffKey)).toEqual(['1-year', '2-years']);
    const quote = opts.options[0]!.quote;
    // 15 of 30 days left of 12.99: 649.5 → 649 (down, and a few ms less than half anyway).
    expect(quote).toMatchObject({
      kind: 'now',
      currency: 'USD',
      priceMinor: 5999,
      creditMinor: 649,
      chargeMinor: 5350,
    });

    // Ten parallel clicks: one payment, one provider page.
    const started = await Promise.all(
      Array.from({ length: 10 }, () => startSwitch(c, { tariffId: 3, expectedChargeMinor: 5350 })),
    );
    for (const r of started) expect(r.statusCode, r.body).toBe(200);
    const ids = new Set(started.map((r) => r.json().data.payment.paymentId));
    expect(ids.size).toBe(1);
    const first = started[0]!.json().data;
    expect(first).toMatchObject({ kind: 'checkout', payment: { amount: 5350, currency: 'USD', provider: 'sandbox' } });
    let rows = await paymentsOf(user.id);
    expect(rows.filter((p) => p.kind === 'switch')).toHaveLength(1);
    // Not paid yet: nothing changed.
    expect((await userRow(user.id)).tariff_key).toBe('1-month');

    await payPage(sandboxIdOf(first.payment.redirectUrl));
    const s = await sub(c);
    expect(s.plan.tariffKey).toBe('1-year');
    rows = await paymentsOf(user.id);
    const sw = rows.find((p) => p.kind === 'switch')!;
    expect(sw).toMatchObject({
      status: 'succeeded',
      applied: true,
      amount_minor: 5350,
      credit_minor: 649,
      list_amount_minor: 5999,
    });
    // One period: a year from the quote, and the month it replaced ends there (credited, never again).
    expect(new Date(s.paidUntil!).getTime()).toBe(new Date(sw.period_start).getTime() + 365 * DAY);
    const month = rows.find((p) => p.kind === 'purchase')!;
    expect(month.superseded_by).toBe(sw.id);
    // The renewal now renews the year, at its regular price, with the kept card.
    expect(s).toMatchObject({
      autoRenew: true,
      nextCharge: { amountMinor: 5999, currency: 'USD' },
      scheduledChange: null,
    });

    // The receipt shows the credit line: the year at its price, less the credit, the total charged.
    const pdf = await c.get(`/api/billing/payments/${first.payment.paymentId}/receipt`);
    expect(pdf.statusCode).toBe(200);
    const text = (await pdfText(pdf.rawPayload)).replace(/\s+/g, ' ');
    expect(text).toContain('59.99 USD');
    expect(text).toContain('Credit for the unused part of 1 Month');
    expect(text).toContain('−6.49 USD');
    expect(text).toMatch(/Total paid\s*53.50 USD/);
    const mails = await mailTo(c, t.app, user.email);
    const receiptMail = mails.find((m) => m.text.includes('53.50 USD ('))!;
    expect(receiptMail.text).toContain(
      '53.50 USD (1 Year: 59.99 USD, less 6.49 USD credit for the unused part of 1 Month)',
    );

    // The sandbox's webhooks for the switch, delivered again and twice: nothing more happens.
    const paidUntil = s.paidUntil;
    for (const { event } of await t.app.services.sandbox!.undelivered()) {
      const { body, signature } = t.app.services.sandbox!.signedDelivery(event);
      const replays = await Promise.all(
        [0, 1, 2].map(() =>
          t.app.inject({
            method: 'POST',
            url: '/api/billing/webhooks/sandbox',
            headers: { 'content-type': 'application/json', 'sandbox-signature': signature },
            payload: body,
          }),
        ),
      );
      for (const r of replays) expect(r.statusCode).toBe(200);
    }
    await t.app.settle();
    expect((await sub(c)).paidUntil).toBe(paidUntil);
    expect((await paymentsOf(user.id)).filter((p) => p.applied)).toHaveLength(2);

    // The replaced month's money-back is refused: its unused part is in the year already.
    const refund = await c.post(`/api/billing/payments/${month.public_id}/refund`, {});
    expect(refund.statusCode, refund.body).toBe(422);
    expect(refund.body).toContain('plan switch');

    // Switching twice: the year is what they have now.
    const again = await startSwitch(c, { tariffId: 3 });
    expect(again.statusCode).toBe(409);
    // A year to two years: the year is worth its full price (5999), nearly all of it unused.
    const two = await quoteOf(c, '2-years');
    expect(two).toMatchObject({ kind: 'now', priceMinor: 8999 });
    if (two.kind === 'now') expect(two.creditMinor).toBeGreaterThanOrEqual(5990);
  });

  it('refuses a quote that moved since it was shown, and bad input, changing nothing', async () => {
    const { c, user } = await monthlyMember(10);
    const before = await paymentsOf(user.id);
    const cases: [Record<string, unknown>, number][] = [
      [{ tariffId: 3, expectedChargeMinor: 1 }, 409],
      [{ tariffId: 'abc' }, 422],
      [{ tariffId: -3 }, 422],
      [{ tariffId: 99999 }, 422],
      [{ tariffId: 1 }, 409], // free
      [{ tariffId: 5 }, 409], // lifetime: bought at checkout
      [{ tariffId: 6 }, 409], // a trial
      [{ tariffId: 2 }, 409], // the same plan
      [{ tariffId: 3, provider: 'nope' }, 422],
      [{ tariffId: 3, provider: 'stripe' }, 422], // not configured here
      [{ tariffId: 3, returnPath: 'https://evil.example/x' }, 422],
      [{ tariffId: 3, expectedChargeMinor: -5 }, 422],
    ];
    for (const [body, status] of cases) {
      const res = await startSwitch(c, body);
      expect(res.statusCode, `${JSON.stringify(body)} ${res.body}`).toBe(status);
      expect(res.json()).toHaveProperty('message');
    }
    expect(await paymentsOf(user.id)).toEqual(before);
    // Signed out: 401.
    const anon = await new TestClient(t.app).post('/api/billing/subscription/switch', { tariffId: 3 });
    expect(anon.statusCode).toBe(401);
  });

  it('the free plan and a lifetime plan have nothing to switch', async () => {
    const { c } = await member();
    const o = await options(c);
    for (const opt of o.options) expect(opt.quote).toEqual({ kind: 'refused', reason: 'not-active' });
    expect((await startSwitch(c, { tariffId: 3 })).statusCode).toBe(409);
  });

  it('a granted month: no money credited, its unused days carried after the new year', async () => {
    const { c, user } = await member();
    await t.app.billing.operator.grant(user.id, '1-month');
    const q = await quoteOf(c, '1-year');
    expect(q).toMatchObject({ kind: 'now', creditMinor: 0, chargeMinor: 5999 });
    if (q.kind === 'now') {
      expect(q.carriedDays).toBe(29); // 30 days less the moments since (whole days shown)
      expect(new Date(q.periodEnd).getTime() - new Date(q.periodStart).getTime()).toBeGreaterThan(394 * DAY);
    }
  });
});

describe('a year to a month: at the next renewal', () => {
  it('is scheduled, shown, cancellable, and the renewal job charges the month', async () => {
    const { c, user } = await monthlyMember(1);
    const r = await startSwitch(c, { tariffId: 3 });
    expect(r.statusCode, r.body).toBe(200);
    await payPage(sandboxIdOf(r.json().data.payment.redirectUrl));
    expect((await sub(c)).plan.tariffKey).toBe('1-year');

    const down = await startSwitch(c, { tariffId: 2 });
    expect(down.statusCode, down.body).toBe(200);
    const d = down.json().data;
    expect(d).toMatchObject({ kind: 'scheduled', quote: { kind: 'scheduled', nextChargeMinor: 1299 } });
    let s = d.subscription as SubscriptionInfo;
    expect(s.plan.tariffKey).toBe('1-year');
    expect(s.scheduledChange).toMatchObject({ tariffKey: '1-month', nextCharge: { amountMinor: 1299 } });
    expect(s.scheduledChange!.effectiveAt).toBe(s.paidUntil);
    expect(s.nextCharge).toEqual({ amountMinor: 1299, currency: 'USD' });
    // No payment for a scheduled change.
    expect((await paymentsOf(user.id)).filter((p) => p.status === 'pending')).toHaveLength(0);

    // Cancelled, twice (the second is a 409), then scheduled again.
    const cancel = await c.post('/api/billing/subscription/switch/cancel', {});
    expect(cancel.statusCode).toBe(200);
    expect(cancel.json().data.scheduledChange).toBeNull();
    expect(cancel.json().data.nextCharge).toEqual({ amountMinor: 5999, currency: 'USD' });
    expect((await c.post('/api/billing/subscription/switch/cancel', {})).statusCode).toBe(409);
    expect((await startSwitch(c, { tariffId: 2 })).statusCode).toBe(200);

    // The renewal: the month, charged once, at its price; the plan is the month from then on.
    const until = new Date((await sub(c)).paidUntil!);
    const asOf = new Date(until.getTime() - 2 * DAY);
    const [a, b] = await Promise.all([pass(asOf), pass(asOf)]);
    expect([...a.renewals, ...b.renewals].filter((x) => x.outcome === 'renewed').length).toBeGreaterThanOrEqual(1);
    const renewals = (await paymentsOf(user.id)).filter((p) => p.kind === 'renewal');
    expect(renewals).toHaveLength(1);
    expect(renewals[0]).toMatchObject({ status: 'succeeded', applied: true, amount_minor: 1299, tariff_id: 2 });
    s = await sub(c);
    expect(s.plan.tariffKey).toBe('1-month');
    expect(new Date(s.paidUntil!).getTime()).toBe(until.getTime() + 30 * DAY);
    expect(s.scheduledChange).toBeNull();
    expect(s.nextCharge).toEqual({ amountMinor: 1299, currency: 'USD' });
  });

  it('needs auto-renew: a plan that will not renew has nothing to change', async () => {
    const { c } = await monthlyMember(1);
    const r = await startSwitch(c, { tariffId: 3 });
    await payPage(sandboxIdOf(r.json().data.payment.redirectUrl));
    expect((await c.post('/api/billing/subscription/autoRenew', { enabled: false })).statusCode).toBe(200);
    expect(await quoteOf(c, '1-month')).toEqual({ kind: 'refused', reason: 'no-renewal' });
    expect((await startSwitch(c, { tariffId: 2 })).statusCode).toBe(409);
  });
});

describe('attacks on the one-period rule', () => {
  it('a renewal charged while a switch checkout is open: the switch paid after it is refunded, not applied', async () => {
    const { c, user } = await monthlyMember(28); // 2 days left: the renewal is due (3 days' lead)
    const r = await startSwitch(c, { tariffId: 3 });
    expect(r.statusCode, r.body).toBe(200);
    const page = sandboxIdOf(r.json().data.payment.redirectUrl);
    const until = (await userRow(user.id)).subscription_expires_at;
    const res = await pass(new Date());
    expect(res.renewals.map((x) => x.outcome)).toEqual(['renewed']);
    await payPage(page);
    const rows = await paymentsOf(user.id);
    const sw = rows.find((p) => p.kind === 'switch')!;
    expect(sw).toMatchObject({ applied: false, status: 'refunded' });
    expect(rows.filter((p) => p.applied)).toHaveLength(2); // the month and its renewal
    const s = await sub(c);
    expect(s.plan.tariffKey).toBe('1-month');
    expect(new Date(s.paidUntil!).getTime()).toBe(new Date(until).getTime() + 30 * DAY);
    // The refund of a switch that never applied leaves auto-renew as it was.
    expect(s.autoRenew).toBe(true);
  });

  it('a switch and a renewal at the same moment: exactly one extends the period', async () => {
    const { c, user } = await monthlyMember(28);
    const r = await startSwitch(c, { tariffId: 3 });
    const page = sandboxIdOf(r.json().data.payment.redirectUrl);
    await Promise.all([pass(new Date()), payPage(page)]);
    await t.app.settle();
    const rows = await paymentsOf(user.id);
    const applied = rows.filter((p) => p.applied && p.kind !== 'purchase');
    expect(applied).toHaveLength(1);
    const s = await sub(c);
    if (applied[0]!.kind === 'switch') {
      expect(s.plan.tariffKey).toBe('1-year');
      expect(rows.filter((p) => p.kind === 'renewal' && p.status === 'succeeded')).toHaveLength(0);
    } else {
      expect(s.plan.tariffKey).toBe('1-month');
      expect(rows.find((p) => p.kind === 'switch')!.status).toBe('refunded');
    }
  });

  it('a checkout abandoned and come back to a day later: a fresh quote, and only one of the two ever applies', async () => {
    const { c, user } = await monthlyMember(5);
    const r1 = await startSwitch(c, { tariffId: 3 });
    const page1 = sandboxIdOf(r1.json().data.payment.redirectUrl);
    // A day passes: the quote is a day old (its hour's key is another hour's now).
    await t.app.db.query(
      `update payments set created_at = created_at - interval '1 day', idempotency_key = idempotency_key || '-yesterday' where public_id = $1`,
      [r1.json().data.payment.paymentId],
    );
    const r2 = await startSwitch(c, { tariffId: 3 });
    expect(r2.statusCode, r2.body).toBe(200);
    expect(r2.json().data.payment.paymentId).not.toBe(r1.json().data.payment.paymentId);
    let rows = await paymentsOf(user.id);
    expect(rows.filter((p) => p.kind === 'switch').map((p) => p.status)).toEqual(['failed', 'pending']);
    // Both pages paid anyway: the first applies (its own quote, its own start), the second is refunded.
    await payPage(page1);
    await payPage(sandboxIdOf(r2.json().data.payment.redirectUrl));
    rows = await paymentsOf(user.id);
    const switches = rows.filter((p) => p.kind === 'switch');
    expect(switches.map((p) => [p.applied, p.status])).toEqual([
      [true, 'succeeded'],
      [false, 'refunded'],
    ]);
    const s = await sub(c);
    expect(new Date(s.paidUntil!).getTime()).toBe(new Date(switches[0]!.period_start).getTime() + 365 * DAY);
  });

  it('parallel switches to two different periods: at most one applies', async () => {
    const { c, user } = await monthlyMember(3);
    const [a, b] = await Promise.all([startSwitch(c, { tariffId: 3 }), startSwitch(c, { tariffId: 4 })]);
    expect(a.statusCode).toBe(200);
    expect(b.statusCode).toBe(200);
    await Promise.all([
      payPage(sandboxIdOf(a.json().data.payment.redirectUrl)),
      payPage(sandboxIdOf(b.json().data.payment.redirectUrl)),
    ]);
    await t.app.settle();
    const switches = (await paymentsOf(user.id)).filter((p) => p.kind === 'switch');
    expect(switches.filter((p) => p.applied)).toHaveLength(1);
    expect(switches.filter((p) => !p.applied).every((p) => p.status === 'refunded')).toBe(true);
  });
});

describe("a switch's money-back undoes it (plan-switch.ts switchRefundTakesBack)", () => {
  it('gives back what was charged and keeps the days the credit paid for, on the month, renewing the month', async () => {
    const { c, user } = await monthlyMember(15);
    const before = await userRow(user.id);
    const started = await startSwitch(c, { tariffId: 3, expectedChargeMinor: 5350 });
    expect(started.statusCode, started.body).toBe(200);
    await payPage(sandboxIdOf(started.json().data.payment.redirectUrl));
    expect((await sub(c)).plan.tariffKey).toBe('1-year');
    const sw = (await paymentsOf(user.id)).find((p) => p.kind === 'switch')!;

    const refund = await c.post(`/api/billing/payments/${sw.public_id}/refund`, {});
    expect(refund.statusCode, refund.body).toBe(200);
    await t.app.settle();
    const rows = await paymentsOf(user.id);
    expect(rows.find((p) => p.kind === 'switch')!.status).toBe('refunded');
    // Back on the month with the paid-until it had: the 15 days its credit stood for are not lost.
    const after = await userRow(user.id);
    expect(after.tariff_key).toBe('1-month');
    expect(new Date(after.subscription_expires_at).getTime()).toBe(new Date(before.subscription_expires_at).getTime());
    // The month is live again: credited again by the next switch, at what is left of it then.
    const month = rows.find((p) => p.kind === 'purchase')!;
    expect(month.superseded_by).toBeNull();
    const again = await quoteOf(c, '1-year');
    expect(again).toMatchObject({ kind: 'now', creditMinor: 649, chargeMinor: 5350 });
    // The renewal is the month's again (auto-renew is off after a refund, as for any refund).
    const [renewal] = await t.app.db.query<{ tariff_id: number; auto_renew: boolean }>(
      'select tariff_id, auto_renew from subscription_renewals where user_id = $1',
      [user.id],
    );
    expect(renewal).toEqual({ tariff_id: 2, auto_renew: false });
  });
});

describe('changing the card without buying again', () => {
  it("through the sandbox's own page: nothing charged, the renewal uses the new card; stale and foreign confirms change nothing", async () => {
    const { c, user } = await monthlyMember(1);
    const before = await sub(c);
    expect(before).toMatchObject({ canUpdateMethod: true, paymentMethod: { provider: 'sandbox' } });
    const [old] = await t.app.db.query<{ method_ref: string }>(
      'select method_ref from subscription_renewals where user_id = $1',
      [user.id],
    );
    // Nothing open yet: a confirm is a 409.
    expect((await c.post('/api/billing/subscription/paymentMethod/confirm', {})).statusCode).toBe(409);
    const start = await c.post('/api/billing/subscription/paymentMethod/update', {});
    expect(start.statusCode, start.body).toBe(200);
    const url = new URL(start.json().data.redirectUrl);
    const pageHtml = await t.app.inject({ method: 'GET', url: url.pathname });
    expect(pageHtml.body).toContain('Save card');
    expect(pageHtml.body).toContain('0.00 USD');
    // Back before saving: not saved, nothing changes.
    expect((await c.post('/api/billing/subscription/paymentMethod/confirm', {})).statusCode).toBe(409);
    await payPage(url.pathname.split('/').pop()!);
    // Another member confirming changes nothing of this one's.
    const other = await monthlyMember(1);
    expect((await other.c.post('/api/billing/subscription/paymentMethod/confirm', {})).statusCode).toBe(409);
    const confirmed = await Promise.all(
      [0, 1].map(() => c.post('/api/billing/subscription/paymentMethod/confirm', {})),
    );
    expect(confirmed.map((r) => r.statusCode).sort()).toContain(200);
    const [now] = await t.app.db.query<{ method_ref: string; method_update_ref: string | null }>(
      'select method_ref, method_update_ref from subscription_renewals where user_id = $1',
      [user.id],
    );
    expect(now!.method_ref).not.toBe(old!.method_ref);
    expect(now!.method_update_ref).toBeNull();
    // Nothing was charged: still one payment.
    expect(await paymentsOf(user.id)).toHaveLength(1);
    // The old card is gone at the provider (the sandbox's store): it cannot be charged any more.
    expect(await t.app.services.sandbox!.card(old!.method_ref)).toBeUndefined();
    expect(await t.app.services.sandbox!.card(now!.method_ref)).toBeDefined();
    expect(
      await t.app.db.query('select 1 from payment_method_detaches where method_ref = $1', [old!.method_ref]),
    ).toEqual([]);
    const until = new Date((await sub(c)).paidUntil!);
    const r = await pass(new Date(until.getTime() - 2 * DAY));
    expect(r.renewals.find((x) => x.userId === user.id)?.outcome).toBe('renewed');
  });
});
