import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { SubscriptionInfo, SwitchOptions } from '@warren/contract';
import { renderRoute } from '../../../test/render';
import { stubApi } from '../../../test/http';
import { SubscriptionPage } from './SubscriptionPage';

// The switch card (issue 23) against the API mocked at the HTTP boundary: the quote is the
// server's, the page shows it before anything is paid, and sends the amount it showed.
const monthly: SubscriptionInfo = {
  plan: { tariffKey: '1-month', tariffName: '1 Month', lifetime: false },
  status: 'active',
  paidUntil: '2026-12-24T10:00:00.000Z',
  autoRenew: true,
  canAutoRenew: true,
  renewsAt: '2026-12-21T10:00:00.000Z',
  nextCharge: { amountMinor: 1299, currency: 'USD' },
  paymentMethod: { provider: 'sandbox', label: 'Test card •••• 4242' },
  lastRenewalError: null,
  canUpdateMethod: false,
  scheduledChange: null,
};
const options: SwitchOptions = {
  currentTariffKey: '1-month',
  currency: 'USD',
  providers: ['sandbox'],
  options: [
    {
      tariffId: 3,
      tariffKey: '1-year',
      tariffName: '1 Year',
      periodDays: 365,
      quote: {
        kind: 'now',
        currency: 'USD',
        priceMinor: 5999,
        creditMinor: 649,
        chargeMinor: 5350,
        carriedDays: 0,
        periodStart: '2026-11-28T10:00:00.000Z',
        periodEnd: '2027-11-28T10:00:00.000Z',
      },
    },
    {
      tariffId: 4,
      tariffKey: '2-years',
      tariffName: '2 Years',
      periodDays: 730,
      quote: { kind: 'refused', reason: 'credit-covers' },
    },
  ],
};
const ok = <T,>(data: T) => ({ status: 200, body: { data } });

afterEach(() => vi.unstubAllGlobals());

describe('switching the billing period', () => {
  it('shows the price, the credit and what is due before paying, and sends the amount it showed', async () => {
    const assign = vi.fn();
    const sent: unknown[] = [];
    vi.stubGlobal('location', { ...window.location, assign });
    const api = stubApi({
      'GET billing/subscription': ok(monthly),
      'GET billing/payments': ok({ items: [], moneyBackDays: 7 }),
      'GET billing/address': ok({ address: null }),
      'GET billing/subscription/switch/options': ok(options),
      'GET billing/paymentMethods': ok({
        country: 'US',
        currency: 'USD',
        methods: [{ provider: 'sandbox', type: '', label: 'Sandbox test card' }],
      }),
      'POST billing/subscription/switch': async (request: Request) => {
        sent.push(await request.json());
        return ok({
          kind: 'checkout',
          quote: options.options[0]!.quote,
          payment: {
            paymentId: 'pay_1',
            provider: 'sandbox',
            amount: 5350,
            currency: 'USD',
            redirectUrl: '/sandbox/checkout/sbx_1',
          },
        });
      },
    });
    await renderRoute(<SubscriptionPage />, '/subscription');
    const year = await screen.findByTestId('switch-option-1-year', {}, { timeout: 5000 });
    expect(year).toHaveTextContent('Today: $53.50');
    // A refused option says why and cannot be chosen.
    expect(screen.getByTestId('switch-option-2-years')).toHaveTextContent('Please write to support to switch');
    // The card without a provider page for it says so instead of a button.
    expect(screen.getByTestId('cannot-change-card')).toBeInTheDocument();
    await userEvent.click(year);
    expect(await screen.findByTestId('switch-price')).toHaveTextContent('$59.99');
    expect(screen.getByTestId('switch-credit')).toHaveTextContent('−$6.49');
    expect(screen.getByTestId('switch-charge')).toHaveTextContent('$53.50');
    expect(api.count('POST billing/subscription/switch')).toBe(0);
    await userEvent.click(screen.getByTestId('switch-pay'));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/sandbox/checkout/sbx_1'), { timeout: 5000 });
    expect(api.count('POST billing/subscription/switch')).toBe(1);
    // The charge it showed goes with the request: a quote that moved since is refused, never charged.
    expect(sent).toEqual([expect.objectContaining({ tariffId: 3, provider: 'sandbox', expectedChargeMinor: 5350 })]);
  });

  it('a scheduled change is shown with its date and price, and is cancelled', async () => {
    let info: SubscriptionInfo = {
      ...monthly,
      plan: { tariffKey: '1-year', tariffName: '1 Year', lifetime: false },
      scheduledChange: {
        tariffId: 2,
        tariffKey: '1-month',
        tariffName: '1 Month',
        effectiveAt: '2026-12-24T10:00:00.000Z',
        nextCharge: { amountMinor: 1299, currency: 'USD' },
      },
    };
    stubApi({
      'GET billing/subscription': () => ok(info),
      'GET billing/payments': ok({ items: [], moneyBackDays: 7 }),
      'GET billing/address': ok({ address: null }),
      'GET billing/subscription/switch/options': ok({ ...options, options: [] }),
      'GET billing/paymentMethods': ok({ country: 'US', currency: 'USD', methods: [] }),
      'POST billing/subscription/switch/cancel': () => {
        info = { ...info, scheduledChange: null };
        return ok(info);
      },
    });
    await renderRoute(<SubscriptionPage />, '/subscription');
    const note = await screen.findByTestId('scheduled-change', {}, { timeout: 5000 });
    expect(note).toHaveTextContent('your plan changes to 1 Month on December 24, 2026; that renewal charges $12.99');
    await userEvent.click(screen.getByTestId('cancel-scheduled-change'));
    await waitFor(() => expect(screen.queryByTestId('scheduled-change')).not.toBeInTheDocument(), { timeout: 5000 });
  });
});
