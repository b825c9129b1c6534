import { render, screen } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { describe, expect, it } from 'vitest';
import type { TariffPrice } from '@warren/contract';
import { initTestI18n } from '../../test/render';
import { PlanOptions } from './PlanOptions';

const plan = (o: Partial<TariffPrice>): TariffPrice => ({
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
  promo: null,
  ...o,
});

describe('plan cards', () => {
  it('show the per-month price the API gives ($59.99 a year is $5/mo) and a promo label only on the plans it discounts', async () => {
    await initTestI18n();
    const plans = [
      plan({
        tariffId: 3,
        key: '1-year',
        name: '1 Year',
        periodDays: 365,
        amount: 4199,
        listAmount: 5999,
        discountPercent: 30,
        monthlyAmount: 350,
        promo: { code: 'YEAR30', percentOff: 30 },
      }),
      plan({}),
      plan({
        tariffId: 4,
        key: '2-years',
        name: '2 Years',
        periodDays: 730,
        amount: 8999,
        listAmount: 8999,
        monthlyAmount: 375,
      }),
    ];
    render(
      <MantineProvider env="test">
        <PlanOptions plans={plans} value={3} onChange={() => {}} label="Plans" />
      </MantineProvider>,
    );
    expect(screen.getByTestId('promo-1-year').textContent).toBe('YEAR30: −30%');
    expect(screen.queryByTestId('promo-1-month')).toBeNull();
    expect(screen.queryByTestId('promo-2-years')).toBeNull();
    expect(screen.getByTestId('plan-2-years').textContent).toContain('$3.75');
    expect(screen.getByTestId('plan-1-year').textContent).toContain('$3.50');
  });
});
