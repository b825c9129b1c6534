import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signSandbox } from '../src/payments/sandbox.js';
import { hmac } from '../src/lib/secrets.js';
import { TestClient, createTestApp, mailTo, registerUser, signedUpClient, type TestApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ JOBS: 'false' });
});
afterAll(async () => {
  await t?.close();
});

async function createSandboxPayment(c: TestClient, body: Record<string, unknown> = {}) {
  const res = await c.post('/api/billing/createPayment', {
    tariffId: 2,
    currency: 'USD',
    provider: 'sandbox',
    returnPath: '/thank-you',
    ...body,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { paymentId: string; redirectUrl: string; amount: number };
}

const sandboxIdOf = (redirectUrl: string) => new URL(redirectUrl).pathname.split('/').pop()!;

async function pressOnSandboxPage(sandboxId: string, outcome: 'pay' | 'decline') {
  return t.app.inject({
    method: 'POST',
    url: `/sandbox/checkout/${sandboxId}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `outcome=${outcome}`,
  });
}

async function subscription(c: TestClient) {
  return (await c.get('/api/users/info/get')).json().data.subscriptionData as {
    tariffKey: string;
    tariffName: string;
    expiresAt: string | null;
  };
}

describe('catalogue', () => {
  it('lists currencies, landing prices and guest prices', async () => {
    const c = new TestClient(t.app);
    const cur = (await c.get('/api/billing/getCurrencies')).json().data;
    expect(cur.currencies).toEqual(expect.arrayContaining(['USD', 'EUR', 'RUB', 'CNY']));
    const landing = (await c.get('/api/billing/getLandingPriceList?selectedPlan=discount-15&currency=EUR')).json().data;
    expect(landing.priceList).toBe('discount-15');
    const year = landing.plans.find((p: { tariffId: number }) => p.tariffId === 3);
    expect(year).toMatchObject({ currency: 'EUR', amount: 4674, listAmount: 5499, discountPercent: 15 });
    expect((await c.get('/api/billing/getGuestPriceData')).json()).toEqual({ data: {} });
    const guest = (await c.get('/api/billing/getGuestPriceData?tariffId=2&currency=USD&promocode=welcome10')).json()
      .data;
    expect(guest).toMatchObject({
      tariffId: 2,
      amount: 1169,
      listAmount: 1299,
      promo: { code: 'WELCOME10', percentOff: 10 },
    });
  });

  it('explains a bad promo code or currency on its field', async () => {
    const c = new TestClient(t.app);
    const res = await c.get('/api/billing/getGuestPriceData?tariffId=2&currency=USD&promocode=YEAR30');
    expect(res.statusCode).toBe(422);
    expect(res.json().errors.promocode).toEqual(['This promo code does not apply to this plan.']);
    expect(
      (await c.get('/api/billing/getGuestPriceData?tariffId=2&currency=XXX')).json().errors.currency,
    ).toBeDefined();
    expect((await c.get('/api/billing/getGuestPriceData?tariffId=1&currency=USD')).statusCode).toBe(422);
  });
});

describe('sandbox payment', () => {
  it('goes from checkout to an active plan through the hosted page and a signed webhook', async () => {
    const { c, user } = await signedUpClient(t.app);
    const payment = await createSandboxPayment(c);
    expect(payment.amount).toBe(1299);
    const page = await t.app.inject({ method: 'GET', url: new URL(payment.redirectUrl).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('12.99 USD');
    const done = await pressOnSandboxPage(sandboxIdOf(payment.redirectUrl), 'pay');
    expect(done.body).toContain('redirect_status=succeeded');
    expect(done.body).toContain('/thank-you');
    const sub = await subscription(c);
    expect(sub.tariffKey).toBe('1-month');
    const expires = new Date(sub.expiresAt!).getTime();
    expect(Math.abs(expires - (Date.now() + 30 * 86_400_000))).toBeLessThan(60_000);
    const info = (await c.get('/api/billing/getPlanInfo')).json().data;
    expect(info.payments).toHaveLength(1);
    expect(info.payments[0]).toMatchObject({ tariff_id: 2, status: 'succeeded' });
    const me = (await c.get('/api/users/info/get')).json().data;
    expect(me.accountStatus).toBe('Active');
    const receipt = (await mailTo(c, t.app, user.email)).find((m) => m.subject.includes('receipt'));
    expect(receipt?.text).toContain('12.99 USD');
  });

  it('a decline fails the payment and returns with redirect_status=failed', async () => {
    const { c } = await signedUpClient(t.app);
    const payment = await createSandboxPayment(c);
    const done = await pressOnSandboxPage(sandboxIdOf(payment.redirectUrl), 'decline');
    expect(done.body).toContain('redirect_status=failed');
    expect((await subscription(c)).tariffKey).toBe('free-plan');
  });

  it('20 concurrent checkouts with one idempotency key make one payment', async () => {
    const { c, user } = await signedUpClient(t.app);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        c.post('/api/billing/createPayment', {
          tariffId: 3,
          currency: 'USD',
          provider: 'sandbox',
          idempotencyKey: 'same-key-123456',
        }),
      ),
    );
    expect(results.every((r) => r.statusCode === 200)).toBe(true);
    expect(new Set(results.map((r) => r.json().data.paymentId)).size).toBe(1);
    expect(new Set(results.map((r) => r.json().data.redirectUrl)).size).toBe(1);
    const [{ n }] = (await t.app.db.query<{ n: number }>('select count(*)::int as n from payments where user_id = $1', [
      user.id,
    ])) as [{ n: number }];
    expect(n).toBe(1);
    const [{ s }] = (await t.app.db.query<{ s: number }>(
      `select count(*)::int as s from sandbox_payments where merchant_ref = $1`,
      [results[0]!.json().data.paymentId],
    )) as [{ s: number }];
    expect(s).toBe(1);
  });

  it('refuses return addresses off this site', async () => {
    const { c } = await signedUpClient(t.app);
    for (const returnPath of ['https://evil.example/', '//evil.example', 'javascript:alert(1)']) {
      const res = await c.post('/api/billing/createPayment', {
        tariffId: 2,
        currency: 'USD',
        provider: 'sandbox',
        returnPath,
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors.returnPath).toBeDefined();
    }
  });

  it('quotes and sells the special offer to a member whose first payment was the monthly plan', async () => {
    const { c } = await signedUpClient(t.app);
    const anonymousQuote = (
      await new TestClient(t.app).get('/api/billing/getGuestPriceData?tariffId=3&currency=USD&priceList=special-offer')
    ).json().data;
    expect(anonymousQuote.amount).toBe(5999);
    const first = await createSandboxPayment(c, { tariffId: 2 });
    await pressOnSandboxPage(sandboxIdOf(first.redirectUrl), 'pay');
    const memberQuote = (
      await c.get('/api/billing/getGuestPriceData?tariffId=3&currency=USD&priceList=special-offer')
    ).json().data;
    expect(memberQuote).toMatchObject({ amount: 3599, listAmount: 5999 });
    const offer = await createSandboxPayment(c, { tariffId: 3, priceList: 'special-offer' });
    expect(offer.amount).toBe(3599);
    await pressOnSandboxPage(sandboxIdOf(offer.redirectUrl), 'pay');
    // One offer per member: with two payments the offer is gone.
    expect(
      (
        await c.post('/api/billing/createPayment', {
          tariffId: 3,
          currency: 'USD',
          provider: 'sandbox',
          priceList: 'special-offer',
        })
      ).statusCode,
    ).toBe(403);
  });

  it('does not sell the special offer to someone who does not qualify', async () => {
    const { c } = await signedUpClient(t.app);
    const res = await c.post('/api/billing/createPayment', {
      tariffId: 3,
      currency: 'USD',
      provider: 'sandbox',
      priceList: 'special-offer',
    });
    expect(res.statusCode).toBe(403);
  });
});

describe('webhooks', () => {
  const secret = () => hmac(t.config.appSecret, 'sandbox-webhooks');
  const deliver = (body: string, signature?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/billing/webhooks/sandbox',
      headers: { 'content-type': 'application/json', ...(signature ? { 'sandbox-signature': signature } : {}) },
      payload: body,
    });

  async function paidEvent() {
    const { c, user } = await signedUpClient(t.app);
    const payment = await createSandboxPayment(c);
    const sandboxId = sandboxIdOf(payment.redirectUrl);
    // The customer pays, but the provider's notification is lost: we replay it by hand.
    await t.app.db.query(`update sandbox_payments set status = 'paid' where id = $1`, [sandboxId]);
    const body = JSON.stringify({
      id: `evt_${sandboxId}`,
      type: 'payment.paid',
      created: Math.floor(Date.now() / 1000),
      data: { id: sandboxId, merchant_ref: payment.paymentId },
    });
    return { c, user, payment, sandboxId, body };
  }

  it('the same event 3 times in a row and 10 times at once extends exactly once', async () => {
    const { c, body } = await paidEvent();
    for (let i = 0; i < 3; i++)
      expect((await deliver(body, signSandbox(secret(), body, Math.floor(Date.now() / 1000)))).statusCode).toBe(200);
    const once = (await subscription(c)).expiresAt;
    const concurrent = await Promise.all(
      Array.from({ length: 10 }, () => deliver(body, signSandbox(secret(), body, Math.floor(Date.now() / 1000)))),
    );
    expect(concurrent.every((r) => r.statusCode === 200)).toBe(true);
    expect((await subscription(c)).expiresAt).toBe(once);
    expect(Math.abs(new Date(once!).getTime() - (Date.now() + 30 * 86_400_000))).toBeLessThan(60_000);
  });

  it('a tampered, unsigned or 301-second-old webhook is a 400 with no side effects', async () => {
    const { c, body } = await paidEvent();
    const now = Math.floor(Date.now() / 1000);
    expect((await deliver(body)).statusCode).toBe(400);
    expect(
      (await deliver(body.replace('payment.paid', 'payment.paid '), signSandbox(secret(), body, now))).statusCode,
    ).toBe(400);
    expect((await deliver(body, signSandbox('wrong secret', body, now))).statusCode).toBe(400);
    expect((await deliver(body, signSandbox(secret(), body, now - 301))).statusCode).toBe(400);
    expect((await subscription(c)).tariffKey).toBe('free-plan');
  });

  it('events in any order converge: a refund seen before the payment leaves no extension', async () => {
    const { c, sandboxId, payment } = await paidEvent();
    await t.app.db.query(`update sandbox_payments set status = 'refunded' where id = $1`, [sandboxId]);
    const now = Math.floor(Date.now() / 1000);
    const refunded = JSON.stringify({
      id: `evt_r_${sandboxId}`,
      type: 'payment.refunded',
      created: now,
      data: { id: sandboxId, merchant_ref: payment.paymentId },
    });
    const paid = JSON.stringify({
      id: `evt_p_${sandboxId}`,
      type: 'payment.paid',
      created: now,
      data: { id: sandboxId, merchant_ref: payment.paymentId },
    });
    expect((await deliver(refunded, signSandbox(secret(), refunded, now))).statusCode).toBe(200);
    expect((await deliver(paid, signSandbox(secret(), paid, now))).statusCode).toBe(200);
    expect((await subscription(c)).tariffKey).toBe('free-plan');
    const [row] = await t.app.db.query<{ status: string; applied: boolean }>(
      'select status, applied from payments where public_id = $1',
      [payment.paymentId],
    );
    expect(row).toEqual({ status: 'refunded', applied: false });
  });
});

describe('subscriptions', () => {
  it('a refund within the money-back window takes the period back; later it needs --force', async () => {
    const { c } = await signedUpClient(t.app);
    const payment = await createSandboxPayment(c);
    await pressOnSandboxPage(sandboxIdOf(payment.redirectUrl), 'pay');
    expect((await subscription(c)).tariffKey).toBe('1-month');
    await t.app.billing.operator.refund(payment.paymentId);
    expect((await subscription(c)).tariffKey).toBe('free-plan');

    const second = await createSandboxPayment(c);
    await pressOnSandboxPage(sandboxIdOf(second.redirectUrl), 'pay');
    await t.app.db.query(`update payments set paid_at = now() - interval '8 days' where public_id = $1`, [
      second.paymentId,
    ]);
    await expect(t.app.billing.operator.refund(second.paymentId)).rejects.toThrow(/money-back/);
    expect((await subscription(c)).tariffKey).toBe('1-month');
  });

  it('payments stack from the current expiry, and expiry returns the user to the free plan', async () => {
    const { c, user } = await signedUpClient(t.app);
    for (let i = 0; i < 2; i++) {
      const p = await createSandboxPayment(c);
      await pressOnSandboxPage(sandboxIdOf(p.redirectUrl), 'pay');
    }
    const sub = await subscription(c);
    expect(Math.abs(new Date(sub.expiresAt!).getTime() - (Date.now() + 60 * 86_400_000))).toBeLessThan(60_000);
    await t.app.db.query(`update users set subscription_expires_at = now() - interval '1 second' where id = $1`, [
      user.id,
    ]);
    const expired = await t.app.billing.reconciliation.expireSubscriptions();
    expect(expired).toContain(user.id);
    expect(await subscription(c)).toMatchObject({ tariffKey: 'free-plan', expiresAt: null });
  });
});

describe('prices as the buyer reads them', () => {
  it('the per-month figure is the price divided by the months: $59.99 a year is $5.00, two years $89.99 is $3.75', async () => {
    const c = new TestClient(t.app);
    const plans = (await c.get('/api/billing/getLandingPriceList?currency=USD')).json().data.plans as {
      key: string;
      amount: number;
      monthlyAmount: number | null;
    }[];
    const by = (key: string) => plans.find((p) => p.key === key)!;
    expect(by('1-year')).toMatchObject({ amount: 5999, monthlyAmount: 500 }); // 5999 / 12 = 499.92
    expect(by('2-years')).toMatchObject({ amount: 8999, monthlyAmount: 375 }); // 8999 / 24 = 374.96
    expect(by('1-month')).toMatchObject({ amount: 1299, monthlyAmount: 1299 });
    expect(by('lifetime').monthlyAmount).toBeNull();
    const rub = (await c.get('/api/billing/getLandingPriceList?currency=RUB')).json().data.plans as {
      key: string;
      monthlyAmount: number;
    }[];
    expect(rub.find((p) => p.key === '1-year')!.monthlyAmount).toBe(37492); // 449900 / 12 = 37491.67
  });

  it("a referralID goes with the price list's request but does not change the answer (the web app's cache key leaves it out)", async () => {
    const c = new TestClient(t.app);
    for (const q of ['currency=USD', 'selectedPlan=lite&currency=EUR', 'currency=USD&promocode=YEAR30']) {
      const plain = (await c.get(`/api/billing/getLandingPriceList?${q}`)).json();
      const referred = (await c.get(`/api/billing/getLandingPriceList?${q}&referralID=ref-42`)).json();
      expect(referred).toEqual(plain);
      expect(plain.data.plans.length).toBeGreaterThan(0);
    }
  });

  it('a promo code is marked on the plans it discounts and on no other', async () => {
    const c = new TestClient(t.app);
    const data = (await c.get('/api/billing/getLandingPriceList?currency=USD&promocode=YEAR30')).json().data;
    expect(data.promo).toEqual({ code: 'YEAR30', percentOff: 30 });
    const plans = data.plans as { key: string; amount: number; listAmount: number; promo: unknown }[];
    expect(plans.find((p) => p.key === '1-year')).toMatchObject({
      amount: 4199,
      listAmount: 5999,
      promo: { code: 'YEAR30', percentOff: 30 },
    }); // 5999 * 0.7 = 4199.3
    for (const p of plans.filter((p) => p.key !== '1-year'))
      expect(p, p.key).toMatchObject({ promo: null, amount: p.listAmount });
  });
});

describe('payments never lock a payer out', () => {
  it('plan info names the last checkout; an abandoned attempt stops counting as processing once a later one has an outcome', async () => {
    const { c } = await signedUpClient(t.app);
    expect((await c.get('/api/billing/getPlanInfo')).json().data).toMatchObject({
      paymentStatus: 'processed',
      lastPayment: null,
    });
    // Left at the provider (Back, closed tab): pending, so the thank-you page may wait for it.
    const abandoned = await createSandboxPayment(c, { tariffId: 3 });
    let info = (await c.get('/api/billing/getPlanInfo')).json().data;
    expect(info).toMatchObject({
      paymentStatus: 'processing',
      lastPayment: { id: abandoned.paymentId, status: 'pending', tariff_name: '1 Year' },
    });
    // A later attempt is declined: its outcome is what the buyer sees, not the older pending one.
    const declined = await createSandboxPayment(c, { tariffId: 2 });
    await pressOnSandboxPage(sandboxIdOf(declined.redirectUrl), 'decline');
    info = (await c.get('/api/billing/getPlanInfo')).json().data;
    expect(info).toMatchObject({
      paymentStatus: 'processed',
      lastPayment: { id: declined.paymentId, status: 'failed' },
    });
    // Another one paid.
    const paid = await createSandboxPayment(c, { tariffId: 2 });
    await pressOnSandboxPage(sandboxIdOf(paid.redirectUrl), 'pay');
    info = (await c.get('/api/billing/getPlanInfo')).json().data;
    expect(info).toMatchObject({
      paymentStatus: 'processed',
      tariffKey: '1-month',
      lastPayment: { id: paid.paymentId, status: 'succeeded' },
    });
    expect(info.payments).toHaveLength(1);
  });

  it("another user's payment never shows in my plan info", async () => {
    const a = await signedUpClient(t.app);
    const b = await signedUpClient(t.app);
    await createSandboxPayment(a.c);
    expect((await b.c.get('/api/billing/getPlanInfo')).json().data.lastPayment).toBeNull();
  });
});

describe('the sandbox page opens where the buyer is', () => {
  it("on the buyer's brand host, in the buyer's language", async () => {
    // 127.0.0.1 is the VPN brand's second host: the old page base was its first (localhost).
    const c = new TestClient(t.app, { host: '127.0.0.1' });
    await registerUser(c);
    const res = await c.post('/api/billing/createPayment', {
      tariffId: 2,
      currency: 'USD',
      provider: 'sandbox',
      language: 'ru',
    });
    expect(res.statusCode, res.body).toBe(200);
    const url = new URL(res.json().data.redirectUrl);
    expect(url.origin).toBe('http://127.0.0.1');
    expect(url.searchParams.get('lang')).toBe('ru');
    const page = await t.app.inject({ method: 'GET', url: url.pathname + url.search, headers: { host: '127.0.0.1' } });
    expect(page.body).toContain('<html lang="ru">');
    expect(page.body).toContain('>Оплатить</button>');
    const done = await t.app.inject({
      method: 'POST',
      url: url.pathname + url.search,
      headers: { host: '127.0.0.1', 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'outcome=decline',
    });
    expect(done.body).toContain('Оплата отклонена');
    expect(done.body).toContain('http://127.0.0.1/zg/paymentEvent?redirect_status=failed');
  });

  it('without a language, the one stored on the account; a forged Host falls back to the registered origin', async () => {
    const c = new TestClient(t.app);
    await registerUser(c, undefined, { language: 'zh' });
    const res = await c.post('/api/billing/createPayment', { tariffId: 2, currency: 'USD', provider: 'sandbox' });
    expect(new URL(res.json().data.redirectUrl).searchParams.get('lang')).toBe('zh');
    const forged = new TestClient(t.app, { host: 'evil.example' });
    await registerUser(forged);
    const url = new URL(
      (await forged.post('/api/billing/createPayment', { tariffId: 2, currency: 'USD', provider: 'sandbox' })).json()
        .data.redirectUrl,
    );
    expect(url.hostname).not.toBe('evil.example');
  });
});
