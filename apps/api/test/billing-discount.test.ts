import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DISCOUNT_WINDOW_MS } from '@warren/contract';
import { signFirstVisit } from '../src/modules/billing/discount.js';
import { TestClient, createTestApp, registerUser, type TestApp } from './helpers.js';

/**
 * Finding 8: the discounted price lists sell only inside the visitor's one-day window from the
 * first visit to the discount page (spec sections 2 and 9), which the server tracks in a signed
 * cookie; everyone else is refused, whatever the request says.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ JOBS: 'false' });
});
afterAll(async () => {
  await t?.close();
});
afterEach(() => {
  vi.useRealTimers();
});

const COOKIE_25 = 'discount25FirstVisit';
const COOKIE_15 = 'discount15FirstVisit';

async function buyer() {
  const c = new TestClient(t.app);
  const { user } = await registerUser(c);
  return { c, user };
}

/** What the discount page does first: its price list, which starts the window and answers the cookie. */
async function visitDiscountPage(c: TestClient, list = 'discount-25', cookies: Record<string, string> = {}) {
  const res = await c.get(`/api/billing/getLandingPriceList?selectedPlan=${list}&currency=USD`, { cookies });
  expect(res.statusCode, res.body).toBe(200);
  return {
    data: res.json().data,
    set: res.cookies.find((k) => k.name === (list === 'discount-25' ? COOKIE_25 : COOKIE_15)),
  };
}

const buyYear = (c: TestClient, cookies: Record<string, string> = {}, priceList = 'discount-25') =>
  c.post('/api/billing/createPayment', { tariffId: 3, currency: 'USD', provider: 'sandbox', priceList }, { cookies });

async function paymentsOf(userId: number) {
  return t.app.db.query<{ amount_minor: number; price_list: string }>(
    'select amount_minor, price_list from payments where user_id = $1',
    [userId],
  );
}

describe('discount windows (finding 8)', () => {
  it('refuses a discounted list to a buyer who never opened its page, and creates no payment', async () => {
    const { c, user } = await buyer();
    for (const list of ['discount-25', 'discount-15']) {
      const res = await buyYear(c, {}, list);
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().message).toMatch(/one day from your first visit/);
    }
    expect(await paymentsOf(user.id)).toEqual([]);
    // The regular price stays open to them.
    expect((await buyYear(c, {}, 'default')).json().data.amount).toBe(5999);
  });

  it('the first visit starts the window in a signed cookie; inside it the discount sells at 44.99', async () => {
    const { c, user } = await buyer();
    const { data, set } = await visitDiscountPage(c);
    expect(data.priceList).toBe('discount-25');
    expect(data.offerSecondsLeft).toBeGreaterThan(DISCOUNT_WINDOW_MS / 1000 - 5);
    expect(data.plans.find((p: { tariffId: number }) => p.tariffId === 3)).toMatchObject({
      amount: 4499,
      listAmount: 5999,
      discountPercent: 25,
    });
    expect(set).toMatchObject({ path: '/', sameSite: 'Lax' });
    expect(set!.maxAge).toBeGreaterThan(86_400);
    expect(set!.value).toMatch(/^\d{13}\.[A-Za-z0-9_-]{43}$/);
    // A second visit keeps the same window: no new cookie.
    const again = await visitDiscountPage(c, 'discount-25', { [COOKIE_25]: set!.value });
    expect(again.set).toBeUndefined();
    expect(again.data.offerSecondsLeft).toBeLessThanOrEqual(data.offerSecondsLeft);

    const res = await buyYear(c, { [COOKIE_25]: set!.value });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.amount).toBe(4499);
    expect(await paymentsOf(user.id)).toEqual([{ amount_minor: 4499, price_list: 'discount-25' }]);
  });

  it('a forged, altered, unsigned or cross-list cookie opens nothing', async () => {
    const { c } = await buyer();
    const { set } = await visitDiscountPage(c);
    const [ms, sig] = set!.value.split('.') as [string, string];
    const now = Date.now();
    const forged = [
      String(now), // the old client-written cookie: epoch ms, unsigned
      `${Number(ms) + 60_000}.${sig}`, // moved a minute later with the old signature
      `${ms}.${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`, // signature altered
      `${now}.${'A'.repeat(43)}`,
      signFirstVisit('another-secret-of-at-least-32-characters!!', COOKIE_25, now), // signed with another key
      `${ms}.${sig}.${sig}`,
      '',
    ];
    for (const value of forged) expect((await buyYear(c, { [COOKIE_25]: value })).statusCode, value).toBe(403);
    // The 15 window's cookie does not open the 25 list (and the other way round).
    const fifteen = (await visitDiscountPage(c, 'discount-15')).set!.value;
    expect((await buyYear(c, { [COOKIE_25]: fifteen })).statusCode).toBe(403);
    expect((await buyYear(c, { [COOKIE_15]: set!.value }, 'discount-15')).statusCode).toBe(403);
    expect((await buyYear(c, { [COOKIE_15]: fifteen }, 'discount-15')).json().data.amount).toBe(5099);
    // A forged cookie on the page is treated as no visit: a window starts now, never earlier or later.
    const fresh = await visitDiscountPage(c, 'discount-25', { [COOKIE_25]: `${now - 1000}.${'A'.repeat(43)}` });
    expect(Number(fresh.set!.value.split('.')[0])).toBeGreaterThanOrEqual(now);
  });

  it('closes when the countdown reaches zero: the page answers the regular list and the server refuses the discount (a buyer back a day later)', async () => {
    const { c, user } = await buyer();
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: start });
    const { set } = await visitDiscountPage(c);
    const cookies = { [COOKIE_25]: set!.value };

    // One second before the end: still open.
    vi.setSystemTime(start + DISCOUNT_WINDOW_MS - 1000);
    const late = await visitDiscountPage(c, 'discount-25', cookies);
    expect(late.data).toMatchObject({ priceList: 'discount-25', offerSecondsLeft: 1 });
    const quote = (
      await c.get('/api/billing/getGuestPriceData?tariffId=3&currency=USD&priceList=discount-25', { cookies })
    ).json().data;
    expect(quote.amount).toBe(4499);

    // At zero and after: the regular price, no fresh window, and createPayment refused.
    for (const at of [start + DISCOUNT_WINDOW_MS, start + DISCOUNT_WINDOW_MS + 86_400_000]) {
      vi.setSystemTime(at);
      const closed = await visitDiscountPage(c, 'discount-25', cookies);
      expect(closed.set).toBeUndefined();
      expect(closed.data.priceList).toBe('default');
      expect(closed.data.offerSecondsLeft).toBeNull();
      expect(closed.data.plans.find((p: { tariffId: number }) => p.tariffId === 3).amount).toBe(5999);
      expect(
        (
          await c.get('/api/billing/getGuestPriceData?tariffId=3&currency=USD&priceList=discount-25', { cookies })
        ).json().data.amount,
      ).toBe(5999);
      // The same browser, signed in again (or as another account) a day later: refused too.
      const again = await buyer();
      const res = await buyYear(again.c, cookies);
      expect(res.statusCode, res.body).toBe(403);
      expect(await paymentsOf(again.user.id)).toEqual([]);
    }
    expect(await paymentsOf(user.id)).toEqual([]);
  });

  it('a quote or a payment never starts a window; /plans/discount-25 (signed in) is held to the same window', async () => {
    const { c } = await buyer();
    expect(
      (await c.get('/api/billing/getGuestPriceData?tariffId=3&currency=USD&priceList=discount-25')).json().data.amount,
    ).toBe(5999);
    const res = await buyYear(c);
    expect(res.cookies.find((k) => k.name === COOKIE_25)).toBeUndefined();
  });

  it('parallel payments inside the window each get the discounted price and nothing else', async () => {
    const { c, user } = await buyer();
    const { set } = await visitDiscountPage(c);
    const results = await Promise.all(Array.from({ length: 8 }, () => buyYear(c, { [COOKIE_25]: set!.value })));
    expect(results.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
    const rows = await paymentsOf(user.id);
    expect(rows).toHaveLength(8);
    expect(new Set(rows.map((r) => `${r.amount_minor}/${r.price_list}`))).toEqual(new Set(['4499/discount-25']));
  });
});

describe('discount windows in production', () => {
  it('marks the first-visit cookie Secure', async () => {
    const prod = await createTestApp({
      JOBS: 'false',
      NODE_ENV: 'production',
      APP_SECRET: 'a-production-secret-of-at-least-32-characters',
      ALLOW_NO_CAPTCHA_IN_PRODUCTION: 'true',
      SANDBOX_PAYMENTS: 'false',
    });
    try {
      const res = await prod.app.inject({
        method: 'GET',
        url: '/api/billing/getLandingPriceList?selectedPlan=discount-15&currency=USD',
        headers: { host: 'localhost' },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.cookies.find((k) => k.name === COOKIE_15)).toMatchObject({ secure: true, sameSite: 'Lax' });
    } finally {
      await prod.close();
    }
  });
});
