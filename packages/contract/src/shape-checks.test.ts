import { describe, expect, it } from 'vitest';
import { authResult, user } from './account.js';
import { publicBrand } from './brand.js';
import { envelope, errorBody } from './errors.js';
import { PROVIDERS, currencies, ipInfo, landingPriceList, paymentMethods, planInfo } from './billing.js';
import { adBlockSettings, featureList, featureStateResult } from './account-extras.js';
import {
  asPublicBrand,
  isAuthResultShape,
  isCurrenciesShape,
  isErrorBodyShape,
  isIpInfoShape,
  isLandingPriceListShape,
  isPaymentMethodsShape,
  isAdBlockSettingsAnswer,
  isFeatureListAnswer,
  isFeatureStateResultShape,
  isPlanInfoShape,
  isUserShape,
} from './shape-checks.js';

const validUser = {
  id: 7,
  email: 'a@example.com',
  verified: 1,
  accountStatus: 'Active',
  firstName: 'Ann',
  secondName: '',
  language: 'ru',
  isPostAffiliateAvailable: false,
  isWgSectionAvailable: true,
  twoFactorEnabled: false,
  subscriptionData: { tariffName: '1 month', tariffKey: '1-month', expiresAt: null },
};

const validBrand = {
  id: 'warren',
  productName: 'Warren VPN',
  kind: 'vpn',
  logo: '/logo.svg',
  mainProduct: true,
  paymentFirst: false,
  helpCenterUrl: 'https://help.example',
  affiliatePortalUrl: null,
  supportChat: { botUrl: 'https://chat.example' },
  restrictedKey: null,
  captcha: { provider: 'turnstile', siteKey: 'k' },
  testAccountSuffixes: ['@test.example'],
  redirectHosts: ['localhost'],
  scripts: [{ kind: 'analytics', src: 'https://a.example/s.js' }],
};

/** Every top-level and nested field replaced by a wrong value, removed, or nulled. */
function variants(base: Record<string, unknown>): unknown[] {
  const out: unknown[] = [base, null, [], 'x', 1, {}];
  const wrongs = [undefined, null, 1, 1.5, 'x', true, [], {}, ['x'], [1]];
  for (const key of Object.keys(base)) {
    for (const w of wrongs) out.push({ ...base, [key]: w });
    const inner = base[key];
    if (inner && typeof inner === 'object' && !Array.isArray(inner)) {
      for (const k of Object.keys(inner)) for (const w of wrongs) out.push({ ...base, [key]: { ...inner, [k]: w } });
    }
    if (Array.isArray(inner) && inner[0] && typeof inner[0] === 'object') {
      for (const k of Object.keys(inner[0]))
        for (const w of wrongs) out.push({ ...base, [key]: [{ ...inner[0], [k]: w }] });
    }
  }
  return out;
}

describe('zod-free shape checks agree with the zod schemas', () => {
  it('user', () => {
    const samples = [
      ...variants(validUser),
      { ...validUser, verified: 0, accountStatus: 'Suspended', language: 'zh' },
      { ...validUser, id: -3, extra: 1 },
    ];
    for (const s of samples) expect(isUserShape(s), JSON.stringify(s)).toBe(user.safeParse(s).success);
  });

  it('auth result', () => {
    const samples = [
      ...variants({ user: validUser, token: 'abc' }),
      ...variants(validUser).map((u) => ({ user: u, token: 't' })),
    ];
    for (const s of samples) expect(isAuthResultShape(s), JSON.stringify(s)).toBe(authResult.safeParse(s).success);
  });

  it('brand', () => {
    const { scripts: _scripts, ...withoutScripts } = validBrand;
    const samples = [
      ...variants(validBrand),
      withoutScripts,
      { ...validBrand, supportChat: null, kind: 'proxy', captcha: { provider: 'none', siteKey: null } },
    ];
    for (const s of samples) {
      const zodResult = publicBrand.safeParse(s);
      const ours = asPublicBrand(s);
      expect(ours !== null, JSON.stringify(s)).toBe(zodResult.success);
      if (zodResult.success) expect(ours).toEqual(expect.objectContaining(zodResult.data));
    }
  });

  it('error body', () => {
    const samples = [
      ...variants({ message: 'Bad', errors: { email: ['Required.'] } }),
      { message: 'Bad' },
      { message: 'Bad', errors: {} },
      { message: 'Bad', errors: { a: [] } },
      { message: 'Bad', errors: { a: ['x', 2] } },
    ];
    for (const s of samples) expect(isErrorBodyShape(s), JSON.stringify(s)).toBe(errorBody.safeParse(s).success);
  });

  it('plan info', () => {
    const payment = {
      id: 'p1',
      tariff_id: 2,
      tariff_name: '1 month',
      amount: 9.99,
      currency: 'USD',
      status: 'succeeded',
      provider: 'sandbox',
      created_at: '2026-01-01T00:00:00Z',
      paid_at: null,
    };
    const valid = {
      tariffName: '1 month',
      tariffKey: '1-month',
      expiresAt: null,
      accountStatus: 'Active',
      paymentStatus: 'processed',
      moneyBackDays: 7,
      payments: [payment],
    };
    const samples = [
      ...variants(valid),
      { ...valid, payments: [] },
      { ...valid, moneyBackDays: Number.NaN },
      { ...valid, lastPayment: null },
      ...variants(payment).map((p) => ({ ...valid, lastPayment: p })),
    ];
    for (const s of samples) expect(isPlanInfoShape(s), JSON.stringify(s)).toBe(planInfo.safeParse(s).success);
  });

  it('features', () => {
    const item = { id: 1, name: 'Ad Blocker', isEnabled: false, premium: true };
    const list = envelope(featureList);
    const samples = [
      ...variants({ items: [item] }).map((d) => ({ data: d })),
      ...variants(item).map((i) => ({ data: { items: [i] } })),
      { data: { items: [] } },
      { items: [item] },
    ];
    for (const s of samples) expect(isFeatureListAnswer(s), JSON.stringify(s)).toBe(list.safeParse(s).success);
    const state = { result: true, data: { id: 1, isEnabled: true } };
    for (const s of variants(state))
      expect(isFeatureStateResultShape(s), JSON.stringify(s)).toBe(featureStateResult.safeParse(s).success);
    // The ad blocker's categories (issue 23).
    const settings = { enabled: true, categories: ['ads', 'malware'] };
    const answer = envelope(adBlockSettings);
    for (const s of [
      ...variants(settings).map((d) => ({ data: d })),
      { data: { enabled: false, categories: [] } },
      { data: { enabled: true, categories: ['crypto'] } },
      { data: { enabled: true, categories: [1] } },
    ])
      expect(isAdBlockSettingsAnswer(s), JSON.stringify(s)).toBe(answer.safeParse(s).success);
  });

  it("the checkout's first screen: currencies, country, payment methods, price list", () => {
    for (const s of [...variants({ currencies: ['USD', 'EUR'], default: 'USD' }), { currencies: [], default: 'USD' }]) {
      expect(isCurrenciesShape(s), JSON.stringify(s)).toBe(currencies.safeParse(s).success);
    }
    for (const s of variants({ code: 'DE', currency: 'EUR' }))
      expect(isIpInfoShape(s), JSON.stringify(s)).toBe(ipInfo.safeParse(s).success);
    const method = { provider: 'stripe', type: 'card', label: 'Card' };
    const methods = [
      ...variants({ country: 'US', currency: 'USD', methods: [method] }),
      ...variants(method).map((m) => ({ country: 'US', currency: 'USD', methods: [m] })),
      ...PROVIDERS.map((provider) => ({ country: 'US', currency: 'USD', methods: [{ ...method, provider }] })),
      { country: 'US', currency: 'USD', methods: [{ ...method, provider: 'paypal' }] },
      { country: 'US', currency: 'USD', methods: [] },
    ];
    for (const s of methods)
      expect(isPaymentMethodsShape(s), JSON.stringify(s)).toBe(paymentMethods.safeParse(s).success);
    const plan = {
      tariffId: 3,
      key: '1-year',
      name: '1 year',
      periodDays: 365,
      isLifetime: false,
      isTrial: false,
      currency: 'USD',
      amount: 4499,
      listAmount: 5999,
      discountPercent: 25,
      monthlyAmount: 375,
      promo: { code: 'YEAR30', percentOff: 30 },
    };
    const list = {
      currency: 'USD',
      priceList: 'discount-25',
      plans: [plan],
      promo: { code: 'YEAR30', percentOff: 30 },
      offerSecondsLeft: 86399,
    };
    const { offerSecondsLeft: _left, ...withoutOffer } = list;
    const { promo: _promo, ...planWithoutPromo } = plan;
    const lists = [
      ...variants(list),
      ...variants(plan).map((p) => ({ ...list, plans: [p] })),
      ...variants(list.promo).map((p) => ({ ...list, promo: p })),
      withoutOffer,
      { ...list, offerSecondsLeft: null, promo: null, plans: [] },
      { ...list, plans: [{ ...plan, periodDays: null, monthlyAmount: null, promo: null }] },
      { ...list, plans: [planWithoutPromo] },
      { ...list, plans: [{ ...plan, amount: Number.POSITIVE_INFINITY }] },
    ];
    for (const s of lists)
      expect(isLandingPriceListShape(s), JSON.stringify(s)).toBe(landingPriceList.safeParse(s).success);
  });
});
