import { describe, expect, it } from 'vitest';
import { CHECKOUT_ROUTES, CHECKOUT_VARIANTS, DAY_MS, checkoutAfterDiscount } from '@warren/contract';
import {
  checkoutVariant,
  discountEntry,
  formatCountdown,
  parseFirstVisit,
  secondsUntil,
  serverOffer,
} from './discount';

const NOW = Date.UTC(2026, 0, 10, 12, 0, 0);

describe('checkout variants', () => {
  it('every checkout route has a variant', () => {
    for (const route of CHECKOUT_ROUTES) expect(checkoutVariant(route).path).toBe(route);
    expect(checkoutVariant('/checkout-15/').path).toBe('/checkout-15');
    expect(checkoutVariant('/nope').path).toBe('/checkout');
  });
  it('the 25 variants use a separate cookie from the 15 ones', () => {
    expect(CHECKOUT_VARIANTS['/checkout-15']!.discountCookie).toBe(
      CHECKOUT_VARIANTS['/checkout-ru-15']!.discountCookie,
    );
    expect(CHECKOUT_VARIANTS['/checkout-25']!.discountCookie).toBe(
      CHECKOUT_VARIANTS['/checkout-ru-25']!.discountCookie,
    );
    expect(CHECKOUT_VARIANTS['/checkout-15']!.discountCookie).not.toBe(
      CHECKOUT_VARIANTS['/checkout-25']!.discountCookie,
    );
  });
});

describe('discount window', () => {
  const v15 = CHECKOUT_VARIANTS['/checkout-15']!;
  it('plain variants have no window', () => {
    expect(discountEntry(CHECKOUT_VARIANTS['/checkout']!, null, NOW)).toEqual({ kind: 'none' });
  });
  const SIG = 'A'.repeat(43);
  it('a first visit is a window starting now (the server writes the cookie)', () => {
    expect(discountEntry(v15, null, NOW)).toEqual({ kind: 'open', firstVisitMs: NOW, endsAtMs: NOW + DAY_MS });
  });
  it("a return visit inside the day keeps the first time from the server's signed cookie", () => {
    const first = NOW - 23 * 3600_000;
    expect(discountEntry(v15, `${first}.${SIG}`, NOW)).toEqual({
      kind: 'open',
      firstVisitMs: first,
      endsAtMs: first + DAY_MS,
    });
    expect(parseFirstVisit(`${first}.${SIG}`, NOW)).toBe(first);
    expect(parseFirstVisit(`${first}.short`, NOW)).toBeNull();
  });
  it('a day after the first visit it has expired', () => {
    expect(discountEntry(v15, String(NOW - DAY_MS), NOW)).toEqual({ kind: 'expired' });
    expect(discountEntry(v15, String(NOW - DAY_MS - 1), NOW)).toEqual({ kind: 'expired' });
    expect(discountEntry(v15, String(NOW - DAY_MS + 1), NOW).kind).toBe('open');
  });
  it('garbage or a future first visit restarts the window', () => {
    expect(parseFirstVisit('abc', NOW)).toBeNull();
    expect(parseFirstVisit('', NOW)).toBeNull();
    expect(parseFirstVisit(String(NOW + 60_000), NOW)).toBeNull();
    expect(discountEntry(v15, 'x', NOW)).toMatchObject({ kind: 'open', firstVisitMs: NOW });
  });
  it('follows the server: its seconds left from when the answer came, closed when it answers another list', () => {
    const v25 = CHECKOUT_VARIANTS['/checkout-25']!;
    expect(serverOffer(v25, { priceList: 'discount-25', offerSecondsLeft: 90 }, NOW)).toEqual({
      kind: 'open',
      endsAtMs: NOW + 90_000,
    });
    expect(serverOffer(v25, { priceList: 'default', offerSecondsLeft: null }, NOW)).toEqual({ kind: 'closed' });
    expect(serverOffer(v25, { priceList: 'discount-25', offerSecondsLeft: 0 }, NOW)).toEqual({ kind: 'closed' });
    expect(serverOffer(v25, undefined, NOW)).toEqual({ kind: 'none' });
    expect(serverOffer(CHECKOUT_VARIANTS['/checkout']!, { priceList: 'default' }, NOW)).toEqual({ kind: 'none' });
  });
  it('counts down to the end of the day', () => {
    expect(secondsUntil(NOW + DAY_MS, NOW)).toBe(86400);
    expect(secondsUntil(NOW + 1500, NOW)).toBe(1);
    expect(secondsUntil(NOW - 5, NOW)).toBe(0);
    expect(formatCountdown(86399)).toBe('23:59:59');
    expect(formatCountdown(48 * 3600 - 1)).toBe('47:59:59');
    expect(formatCountdown(61)).toBe('00:01:01');
    expect(formatCountdown(-3)).toBe('00:00:00');
  });
});

describe('after the discount window', () => {
  it('goes to the regular checkout with the same plans, language and currency', () => {
    expect(checkoutAfterDiscount(CHECKOUT_VARIANTS['/checkout-ru-15']!)).toBe('/checkout-ru');
    expect(checkoutAfterDiscount(CHECKOUT_VARIANTS['/checkout-ru-25']!)).toBe('/checkout-ru');
    expect(checkoutAfterDiscount(CHECKOUT_VARIANTS['/checkout-15']!)).toBe('/checkout');
    expect(checkoutAfterDiscount(CHECKOUT_VARIANTS['/checkout-25']!)).toBe('/checkout');
    // Every discounted variant lands on a page of its own language.
    for (const v of Object.values(CHECKOUT_VARIANTS).filter((x) => x.discountCookie)) {
      expect(CHECKOUT_VARIANTS[checkoutAfterDiscount(v)]!.language).toBe(v.language);
    }
  });
});
