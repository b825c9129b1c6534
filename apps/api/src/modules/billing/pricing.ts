/**
 * Pure pricing rules: which price applies to a tariff in a price list and currency, and what a
 * promo code takes off. Amounts are integers in minor units; discounts round to the nearest unit.
 */
export interface PriceRow {
  price_list: string;
  tariff_id: number;
  currency: string;
  amount_minor: number;
}

export interface PromoCode {
  code: string;
  percent_off: number;
  valid_from: Date | string | null;
  valid_until: Date | string | null;
  max_uses: number | null;
  used_count: number;
  tariff_ids: number[] | null;
}

export type PromoProblem = 'unknown' | 'not-started' | 'expired' | 'used-up' | 'not-for-tariff';

export function promoProblem(promo: PromoCode | undefined, tariffId: number, now: Date): PromoProblem | null {
  if (!promo) return 'unknown';
  if (promo.valid_from && new Date(promo.valid_from) > now) return 'not-started';
  if (promo.valid_until && new Date(promo.valid_until) < now) return 'expired';
  if (promo.max_uses !== null && promo.used_count >= promo.max_uses) return 'used-up';
  if (promo.tariff_ids && !promo.tariff_ids.includes(tariffId)) return 'not-for-tariff';
  return null;
}

export const PROMO_MESSAGES: Record<PromoProblem, string> = {
  unknown: 'This promo code does not exist.',
  'not-started': 'This promo code is not active yet.',
  expired: 'This promo code has expired.',
  'used-up': 'This promo code has been used up.',
  'not-for-tariff': 'This promo code does not apply to this plan.',
};

export function applyPercentOff(amountMinor: number, percentOff: number): number {
  return Math.max(1, Math.round((amountMinor * (100 - percentOff)) / 100));
}

/**
 * The price list wins where it has the tariff in that currency; otherwise the default list
 * applies (landing and discount lists only list what they change).
 */
export function resolvePrice(
  prices: readonly PriceRow[],
  tariffId: number,
  currency: string,
  priceList: string,
): { amountMinor: number; listAmountMinor: number; priceList: string } | undefined {
  const find = (list: string) =>
    prices.find((p) => p.price_list === list && p.tariff_id === tariffId && p.currency === currency);
  const base = find('default');
  const listed = find(priceList) ?? base;
  if (!listed) return undefined;
  return {
    amountMinor: listed.amount_minor,
    listAmountMinor: base?.amount_minor ?? listed.amount_minor,
    priceList: listed.price_list,
  };
}
