// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { checkoutPageData } from './server-data';

const prices = (currency: string, priceList: string) => ({
  currency,
  priceList,
  plans: [],
  promo: null,
  offerSecondsLeft: null,
});

function fakeApi(answers: Record<string, unknown>) {
  const asked: string[] = [];
  const get = (path: string) => {
    asked.push(path);
    return Promise.resolve(
      answers[path.split('?')[0]!] instanceof Function
        ? (answers[path.split('?')[0]!] as (p: string) => unknown)(path)
        : answers[path.split('?')[0]!],
    );
  };
  return { asked, get };
}

describe("the checkout variants' first-screen answers, asked for on the server", () => {
  it("plain /checkout: the visitor's country decides the currency; every answer under the key the page's hooks read", async () => {
    const api = fakeApi({
      '/api/billing/getCurrencies': { currencies: ['USD', 'EUR', 'RUB'], default: 'USD' },
      '/api/ip/info': { code: 'DE', currency: 'EUR' },
      '/api/billing/paymentMethods': { country: 'DE', currency: 'EUR', methods: [] },
      '/api/billing/getLandingPriceList': (path: string) =>
        prices(new URL(path, 'http://x').searchParams.get('currency')!, 'default'),
    });
    const data = await checkoutPageData('/checkout', api.get);
    expect(api.asked).toContain('/api/billing/getLandingPriceList?currency=EUR');
    expect(data.map((d) => d.key)).toEqual([
      ['billing', 'currencies'],
      ['ip', 'info'],
      ['billing', 'paymentMethods', ''],
      ['billing', 'landingPriceList', { currency: 'EUR' }],
    ]);
    expect((data[3]!.data as { currency: string }).currency).toBe('EUR');
  });

  it('a variant with its own currency and price list asks for those, not for the country', async () => {
    const api = fakeApi({ '/api/billing/getLandingPriceList': prices('RUB', 'discount-15') });
    const data = await checkoutPageData('/checkout-ru-15', api.get);
    expect(api.asked).not.toContain('/api/ip/info');
    expect(api.asked).toContain('/api/billing/getLandingPriceList?selectedPlan=discount-15&currency=RUB');
    // Answers that failed or do not match the contract are left out: the page asks for them itself.
    expect(data.map((d) => d.key)).toEqual([
      ['billing', 'landingPriceList', { selectedPlan: 'discount-15', currency: 'RUB' }],
    ]);
  });
});
