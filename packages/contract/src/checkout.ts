import { SPECIAL_OFFER_HIDE_UNDER_S, SPECIAL_OFFER_HOURS, SPECIAL_OFFER_TARIFF_ID } from './constants.js';

// Checkout variants and the discount / special-offer rules: plain data and pure functions,
// free of zod (see account-rules.ts).

/**
 * Checkout variants of the specification (section 2): the plans each shows, its price list,
 * and language/currency defaults. Discounted variants keep the offer for one day from the
 * visitor's first visit (the cookie named here), then send the visitor to the regular checkout
 * in the variant's language (checkoutAfterDiscount).
 */
export interface CheckoutVariant {
  tariffIds: number[];
  priceList: string;
  language?: 'en' | 'ru' | 'zh';
  currency?: string;
  discountCookie?: 'discount15FirstVisit' | 'discount25FirstVisit';
}
export const CHECKOUT_VARIANTS: Record<string, CheckoutVariant> = {
  '/checkout': { tariffIds: [3, 4, 2], priceList: 'default' },
  '/checkout-ru': { tariffIds: [3, 4, 2], priceList: 'default', language: 'ru', currency: 'RUB' },
  '/checkout-a': { tariffIds: [4, 3, 2], priceList: 'default' },
  '/checkout-cn': { tariffIds: [3, 4, 2], priceList: 'default', language: 'zh', currency: 'CNY' },
  '/checkout-page': { tariffIds: [3, 4, 2], priceList: 'default' },
  '/checkout-trial': { tariffIds: [6], priceList: 'default' },
  '/checkout-test-19': { tariffIds: [3], priceList: 'landing-test-19' },
  '/checkout-lifetime': { tariffIds: [5], priceList: 'default' },
  '/checkout-lifetime-cn': { tariffIds: [5], priceList: 'default', language: 'zh', currency: 'CNY' },
  '/checkout-lifetime-ru': { tariffIds: [5], priceList: 'default', language: 'ru', currency: 'RUB' },
  '/checkout-lite': { tariffIds: [3, 2], priceList: 'landing-lite' },
  '/checkout-15': { tariffIds: [3, 4, 2], priceList: 'discount-15', discountCookie: 'discount15FirstVisit' },
  '/checkout-25': { tariffIds: [3, 4, 2], priceList: 'discount-25', discountCookie: 'discount25FirstVisit' },
  '/checkout-ru-15': {
    tariffIds: [3, 4, 2],
    priceList: 'discount-15',
    language: 'ru',
    currency: 'RUB',
    discountCookie: 'discount15FirstVisit',
  },
  '/checkout-ru-25': {
    tariffIds: [3, 4, 2],
    priceList: 'discount-25',
    language: 'ru',
    currency: 'RUB',
    discountCookie: 'discount25FirstVisit',
  },
};

/**
 * Where a discounted variant sends the visitor once its window has passed: the regular checkout
 * with the same plans, language and currency (/checkout-ru-15 → /checkout-ru, issue 23: a
 * Russian visitor used to land on the English /checkout); /checkout when there is none.
 */
export function checkoutAfterDiscount(variant: CheckoutVariant): string {
  const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  const found = Object.entries(CHECKOUT_VARIANTS).find(
    ([, v]) =>
      !v.discountCookie &&
      v.priceList === 'default' &&
      v.language === variant.language &&
      v.currency === variant.currency &&
      same(v.tariffIds, variant.tariffIds),
  );
  return found?.[0] ?? '/checkout';
}

/** The discount window: open for one day from the first visit (spec section 9). */
export function isDiscountWindowOpen(
  firstVisitMs: number | null,
  nowMs: number,
  windowMs = 24 * 60 * 60 * 1000,
): boolean {
  return firstVisitMs === null || nowMs - firstVisitMs < windowMs;
}

/**
 * How many months a plan covers: 365-day periods are 12 months, others count 30-day months;
 * null for lifetime and periods under four weeks. The per-month price is the price divided by
 * this ($59.99 a year is $5.00 a month, not 30/365 of it).
 */
export function planMonths(periodDays: number | null, isLifetime = false): number | null {
  if (isLifetime || !periodDays || periodDays < 28) return null;
  return periodDays >= 365 ? Math.round(periodDays / 365) * 12 : Math.round(periodDays / 30);
}

/** The special offer (spec section 4): exactly one payment, tariff 2, less than 48 h ago, more than 60 s left. */
export function specialOfferSecondsLeft(
  payments: { tariff_id: number; created_at: string }[],
  nowMs: number,
): number | null {
  if (payments.length !== 1) return null;
  const [p] = payments;
  if (!p || p.tariff_id !== SPECIAL_OFFER_TARIFF_ID) return null;
  const left = Math.floor((new Date(p.created_at).getTime() + SPECIAL_OFFER_HOURS * 3600 * 1000 - nowMs) / 1000);
  return left >= SPECIAL_OFFER_HIDE_UNDER_S ? left : null;
}
