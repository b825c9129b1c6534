import { describe, expect, it } from 'vitest';
import type { TariffPrice } from '@warren/contract';
import {
  defaultPlanId,
  formatMoney,
  formatPerMonth,
  localeFor,
  orderPlans,
  planMonths,
  savingsPercent,
} from './format';

const plan = (over: Partial<TariffPrice>): TariffPrice => ({
  tariffId: 2,
  key: '1-month',
  name: '1 Month',
  periodDays: 30,
  isLifetime: false,
  isTrial: false,
  currency: 'USD',
  amount: 1299,
  listAmount: 1299,
  discountPercent: 0,
  monthlyAmount: 1299,
  ...over,
});
const month = plan({});
const year = plan({
  tariffId: 3,
  key: '1-year',
  name: '1 Year',
  periodDays: 365,
  amount: 5999,
  listAmount: 5999,
  monthlyAmount: 500,
}); // 5999 / 12
const twoYears = plan({
  tariffId: 4,
  key: '2-years',
  name: '2 Years',
  periodDays: 730,
  amount: 8999,
  listAmount: 8999,
  monthlyAmount: 375,
}); // 8999 / 24
const lifetime = plan({
  tariffId: 5,
  key: 'lifetime',
  periodDays: null,
  isLifetime: true,
  amount: 19999,
  listAmount: 19999,
  monthlyAmount: null,
});
const trial = plan({
  tariffId: 6,
  key: 'trial',
  periodDays: 7,
  isTrial: true,
  amount: 199,
  listAmount: 199,
  monthlyAmount: null,
});

describe('formatMoney', () => {
  it('formats per currency and language, dropping decimals on whole amounts', () => {
    expect(formatMoney(5999, 'USD', 'en')).toBe('$59.99');
    expect(formatMoney(1900, 'USD', 'en')).toBe('$19');
    expect(formatMoney(5499, 'EUR', 'en')).toBe('€54.99');
    expect(formatMoney(449900, 'RUB', 'ru').replace(/\s/g, ' ')).toBe('4 499 ₽');
    expect(formatMoney(39900, 'CNY', 'zh')).toBe('¥399');
    expect(formatMoney(5499, 'EUR', 'ru').replace(/\s/g, ' ')).toBe('54,99 €');
  });
  it('rounds per-month prices to whole roubles and yuan, keeps cents', () => {
    expect(formatPerMonth(36978, 'RUB', 'ru').replace(/\s/g, ' ')).toBe('370 ₽');
    expect(formatPerMonth(3279, 'CNY', 'zh')).toBe('¥33');
    expect(formatPerMonth(500, 'USD', 'en')).toBe('$5'); // $59.99 a year
    expect(formatPerMonth(375, 'USD', 'en')).toBe('$3.75'); // $89.99 for two years
    expect(formatPerMonth(37492, 'RUB', 'ru').replace(/\s/g, ' ')).toBe('375 ₽'); // 4 499 ₽ a year
  });
  it('never throws on an odd currency code', () => {
    expect(formatMoney(1000, 'XYZ1', 'en')).toBe('10 XYZ1');
  });
  it('maps UI languages to locales', () => {
    expect(localeFor('ru')).toBe('ru-RU');
    expect(localeFor('zh')).toBe('zh-CN');
    expect(localeFor(undefined)).toBe('en-US');
    expect(localeFor('de')).toBe('en-US');
  });
});

describe('plans', () => {
  it('counts months', () => {
    expect(planMonths(month)).toBe(1);
    expect(planMonths(year)).toBe(12);
    expect(planMonths(twoYears)).toBe(24);
    expect(planMonths(lifetime)).toBeNull();
    expect(planMonths(trial)).toBeNull();
  });
  it('computes the saving against paying monthly', () => {
    expect(savingsPercent(year, month)).toBe(62); // 12 × 12.99 = 155.88 vs 59.99
    expect(savingsPercent(twoYears, month)).toBe(71);
    expect(savingsPercent(month, month)).toBe(0);
    expect(savingsPercent(plan({ amount: 1104, discountPercent: 15 }), month)).toBe(15);
    expect(savingsPercent(lifetime, month)).toBe(0);
  });
  it('orders by the variant and preselects the year', () => {
    const all = [year, twoYears, month, lifetime, trial];
    expect(orderPlans(all, [3, 4, 2]).map((p) => p.tariffId)).toEqual([3, 4, 2]);
    expect(orderPlans(all, [6]).map((p) => p.tariffId)).toEqual([6]);
    expect(orderPlans(all).map((p) => p.tariffId)).toEqual([3, 4, 2, 5]);
    expect(defaultPlanId(all, [4, 3, 2])).toBe(3);
    expect(defaultPlanId(all, [5])).toBe(5);
    expect(defaultPlanId([], [5])).toBeNull();
  });
});
