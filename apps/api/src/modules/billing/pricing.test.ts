import { describe, expect, it } from 'vitest';
import { applyPercentOff, promoProblem, resolvePrice, type PromoCode } from './pricing.js';
import { extend, revoke, isPaidActive, type TariffInfo } from './subscription.js';
import { safeReturnUrl } from './return-url.js';

const prices = [
  { price_list: 'default', tariff_id: 2, currency: 'USD', amount_minor: 1299 },
  { price_list: 'default', tariff_id: 3, currency: 'USD', amount_minor: 5999 },
  { price_list: 'discount-15', tariff_id: 3, currency: 'USD', amount_minor: 5099 },
];

describe('pricing', () => {
  it('uses the list price where listed and the default elsewhere', () => {
    expect(resolvePrice(prices, 3, 'USD', 'discount-15')).toEqual({
      amountMinor: 5099,
      listAmountMinor: 5999,
      priceList: 'discount-15',
    });
    expect(resolvePrice(prices, 2, 'USD', 'discount-15')).toEqual({
      amountMinor: 1299,
      listAmountMinor: 1299,
      priceList: 'default',
    });
    expect(resolvePrice(prices, 2, 'EUR', 'default')).toBeUndefined();
  });
  it('rounds percentage discounts and never reaches zero', () => {
    expect(applyPercentOff(1299, 10)).toBe(1169);
    expect(applyPercentOff(1299, 100)).toBe(1);
  });
  it('checks promo validity, usage and tariff restrictions', () => {
    const now = new Date('2027-01-01T00:00:00Z');
    const promo: PromoCode = {
      code: 'X',
      percent_off: 10,
      valid_from: null,
      valid_until: '2027-06-01T00:00:00Z',
      max_uses: 2,
      used_count: 1,
      tariff_ids: [3],
    };
    expect(promoProblem(promo, 3, now)).toBeNull();
    expect(promoProblem(promo, 2, now)).toBe('not-for-tariff');
    expect(promoProblem({ ...promo, used_count: 2 }, 3, now)).toBe('used-up');
    expect(promoProblem(promo, 3, new Date('2027-07-01T00:00:00Z'))).toBe('expired');
    expect(promoProblem({ ...promo, valid_from: '2027-02-01T00:00:00Z' }, 3, now)).toBe('not-started');
    expect(promoProblem(undefined, 3, now)).toBe('unknown');
  });
});

const month: TariffInfo = { key: '1-month', name: '1 Month', periodDays: 30, isLifetime: false, isFree: false };
const lifetime: TariffInfo = { key: 'lifetime', name: 'Lifetime', periodDays: null, isLifetime: true, isFree: false };
const now = new Date('2027-01-01T00:00:00Z');
const days = (n: number) => new Date(now.getTime() + n * 86_400_000);

describe('subscription', () => {
  it('extends from now for a free user and from the expiry for an active one', () => {
    const fromFree = extend({ tariffKey: 'free-plan', tariffName: 'Free', expiresAt: null }, month, now);
    expect(fromFree.next.expiresAt).toEqual(days(30));
    const stacked = extend(fromFree.next, month, now);
    expect(stacked.next.expiresAt).toEqual(days(60));
    const lapsed = extend({ tariffKey: '1-month', tariffName: '1 Month', expiresAt: days(-3) }, month, now);
    expect(lapsed.next.expiresAt).toEqual(days(30));
  });
  it('lifetime never expires and refunds take back exactly their period', () => {
    expect(
      extend({ tariffKey: 'free-plan', tariffName: 'Free', expiresAt: null }, lifetime, now).next.expiresAt,
    ).toBeNull();
    const twice = { tariffKey: '1-month', tariffName: '1 Month', expiresAt: days(60) };
    expect(revoke(twice, { start: days(30), end: days(60) }, now).expiresAt).toEqual(days(30));
    expect(revoke({ ...twice, expiresAt: days(30) }, { start: now, end: days(30) }, now).tariffKey).toBe('free-plan');
    expect(
      revoke({ tariffKey: 'lifetime', tariffName: 'Lifetime', expiresAt: null }, { start: now, end: null }, now)
        .tariffKey,
    ).toBe('free-plan');
    expect(isPaidActive(twice, now)).toBe(true);
    expect(isPaidActive({ ...twice, expiresAt: days(-1) }, now)).toBe(false);
  });
});

describe('return URLs', () => {
  const origin = 'http://localhost:8080';
  const known = (h: string) => ['localhost', 'proxy.localhost'].includes(h.split(':')[0]!);
  it('accepts same-origin paths and brand hosts', () => {
    expect(safeReturnUrl('/thank-you', origin, known)?.href).toBe('http://localhost:8080/thank-you');
    expect(safeReturnUrl('http://proxy.localhost:8080/plans', origin, known)?.host).toBe('proxy.localhost:8080');
  });
  const hostile = [
    'https://evil.example/',
    '//evil.example/',
    '///evil.example/',
    '\\\\evil.example',
    '/\\evil.example',
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'http://localhost:8080@evil.example/',
    'http://user:pass@localhost:8080/',
    'https://evil.example%2f@localhost/',
    'http://evil.example#@localhost',
    'http://evil.example?@localhost',
    'http:evil.example',
    'https:/evil.example',
    '/%09/evil.example',
    '\t//evil.example',
    ' //evil.example',
    '/\t/evil.example',
    'http://localhost.evil.example/',
    'http://evillocalhost/',
    'vbscript:msgbox(1)',
    'ftp://localhost/',
    'http://[::ffff:7f00:1]@evil.example/',
    'http://evil.example\\@localhost/',
    '//evil.example/%2e%2e',
    'http://0x7f.1/',
    'https://evil.example/?next=http://localhost',
    'file:///etc/passwd',
    '\u0000//evil.example',
    '/\u2028//evil.example',
    'http://evil。example/',
  ];
  it.each(hostile)('refuses %j', (payload) => {
    expect(safeReturnUrl(payload, origin, known)).toBeNull();
  });
});
