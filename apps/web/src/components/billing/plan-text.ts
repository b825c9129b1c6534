import type { TFunction } from 'i18next';
import type { TariffPrice } from '@warren/contract';
import { formatMoney, planMonths } from '../../lib/billing/format';
import { planDisplayName } from '../../lib/plan';

/** The plan's name in the UI language (the API's English name when we have no translation). */
export function planName(t: TFunction, plan: Pick<TariffPrice, 'key' | 'name'>): string {
  return planDisplayName(t, plan.key, plan.name);
}

/** "Billed $59.99 yearly", "One-time payment", "7 days for $1.99". */
export function billedText(t: TFunction, plan: TariffPrice, language: string): string {
  const price = formatMoney(plan.amount, plan.currency, language);
  if (plan.isLifetime) return t('payment.billed.once', { price });
  const months = planMonths(plan);
  if (!months) return t('payment.billed.days', { count: plan.periodDays ?? 0, price });
  if (months === 1) return t('payment.billed.month', { price });
  if (months === 12) return t('payment.billed.year', { price });
  if (months % 12 === 0) return t('payment.billed.years', { count: months / 12, price });
  return t('payment.billed.months', { count: months, price });
}
