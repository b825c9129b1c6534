import { planMonths as monthsOf, type TariffPrice } from '@warren/contract';

/** Locale tags for our UI languages: Intl formats amounts the way each audience reads them. */
const LOCALES: Record<string, string> = { en: 'en-US', ru: 'ru-RU', zh: 'zh-CN' };

export function localeFor(language: string | undefined): string {
  return LOCALES[(language ?? 'en').slice(0, 2)] ?? 'en-US';
}

/**
 * Makes the browser load its number-formatting data for the language now, in a task of its own:
 * the first currency format of a page load costs ~15-35 ms (ICU), and inside the checkout's first
 * render it made that render the longest task of the take-over.
 */
export function warmMoneyFormat(language: string | undefined): void {
  formatMoney(100, 'USD', language);
}

/**
 * Minor units → a price string for the language: `$59.99`, `4 499 ₽`, `¥399`. Whole amounts
 * drop the decimals (`$19`, `999 ₽`) so cards stay short; other amounts keep two.
 */
export function formatMoney(minor: number, currency: string, language?: string): string {
  const whole = minor % 100 === 0;
  try {
    return new Intl.NumberFormat(localeFor(language), {
      style: 'currency',
      currency,
      currencyDisplay: 'narrowSymbol',
      minimumFractionDigits: whole ? 0 : 2,
      maximumFractionDigits: 2,
    }).format(minor / 100);
  } catch {
    return `${(minor / 100).toFixed(whole ? 0 : 2)} ${currency}`;
  }
}

/** Currencies whose per-month prices read better in whole units (369,78 ₽ → 370 ₽). */
const WHOLE_PER_MONTH = new Set(['RUB', 'CNY', 'JPY', 'KZT']);

/** A per-month price: whole units where kopecks and fen are noise, cents elsewhere. */
export function formatPerMonth(minor: number, currency: string, language?: string): string {
  return formatMoney(WHOLE_PER_MONTH.has(currency) ? Math.round(minor / 100) * 100 : minor, currency, language);
}

/** How many months a plan covers: the contract's rule, the same one the API divides the price by for monthlyAmount. */
export function planMonths(plan: Pick<TariffPrice, 'periodDays' | 'isLifetime'>): number | null {
  return monthsOf(plan.periodDays, plan.isLifetime);
}

/** What the buyer saves against paying the monthly plan's list price for the same months (0 when none). */
export function savingsPercent(plan: TariffPrice, monthly: TariffPrice | undefined): number {
  const months = planMonths(plan);
  if (!months || !monthly || monthly.tariffId === plan.tariffId) return plan.discountPercent;
  const full = monthly.listAmount * months;
  if (full <= plan.amount) return plan.discountPercent;
  return Math.max(plan.discountPercent, Math.round(((full - plan.amount) / full) * 100));
}

/** The plan the page preselects: the one marked best value (the year), else the first. */
export function defaultPlanId(plans: readonly TariffPrice[], order: readonly number[] = []): number | null {
  const ordered = orderPlans(plans, order);
  return (ordered.find((p) => p.key === '1-year') ?? ordered[0])?.tariffId ?? null;
}

/** The plans a variant shows, in the variant's order; without an order, the API's. */
export function orderPlans(plans: readonly TariffPrice[], order: readonly number[] = []): TariffPrice[] {
  if (!order.length) return plans.filter((p) => !p.isTrial);
  return order.map((id) => plans.find((p) => p.tariffId === id)).filter((p): p is TariffPrice => !!p);
}
