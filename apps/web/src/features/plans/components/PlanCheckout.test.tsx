import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TariffPrice } from '@warren/contract';
import { FALLBACK_BRAND, setBrand } from '../../../lib/brand';
import { autoRenewDefault, canRenew, checkoutAttempt } from '../../../lib/billing/checkout-state';
import { stubApi } from '../../../test/http';
import { renderRoute } from '../../../test/render';
import { PlanCheckout } from './PlanCheckout';

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
const PLANS = [
  plan({}),
  plan({
    tariffId: 3,
    key: '1-year',
    name: '1 Year',
    periodDays: 365,
    amount: 5999,
    listAmount: 5999,
    monthlyAmount: 500,
  }),
  plan({
    tariffId: 5,
    key: 'lifetime',
    name: 'Lifetime',
    periodDays: null,
    isLifetime: true,
    amount: 19900,
    listAmount: 19900,
    monthlyAmount: null,
  }),
];

/** The API at the HTTP boundary; returns the JSON bodies the page sends to createPayment. */
function stubCheckoutApi(): Record<string, unknown>[] {
  stubApi({
    'GET ip/info': { status: 200, body: { data: { code: 'US', currency: 'USD' } } },
    'GET billing/getCurrencies': { status: 200, body: { data: { currencies: ['USD'], default: 'USD' } } },
    'GET billing/getLandingPriceList': {
      status: 200,
      body: { data: { currency: 'USD', priceList: 'default', plans: PLANS, promo: null } },
    },
    'GET billing/paymentMethods': {
      status: 200,
      body: {
        data: {
          country: 'US',
          currency: 'USD',
          methods: [
            { provider: 'sandbox', type: '', label: 'Test card' },
            { provider: 'cardlink', type: '', label: 'Cardlink' },
          ],
        },
      },
    },
    'POST billing/createPayment': {
      status: 200,
      body: { data: { paymentId: 'p1', provider: 'sandbox', amount: 5999, currency: 'USD' } },
    },
  });
  const bodies: Record<string, unknown>[] = [];
  const answer = globalThis.fetch;
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    if (input instanceof Request && input.url.endsWith('/billing/createPayment'))
      bodies.push(JSON.parse(await input.clone().text()) as Record<string, unknown>);
    return answer(input, init);
  });
  return bodies;
}

afterEach(() => {
  vi.unstubAllGlobals();
  setBrand(FALLBACK_BRAND);
});

describe('renewal rules', () => {
  it('renews only with a provider that charges again and a plan with a period', () => {
    for (const provider of ['stripe', 'payssionv2', 'sandbox'] as const)
      expect(canRenew(plan({}), { provider })).toBe(true);
    for (const provider of ['cardlink', 'payssion'] as const) expect(canRenew(plan({}), { provider })).toBe(false);
    expect(canRenew(plan({ isLifetime: true }), { provider: 'stripe' })).toBe(false);
    expect(canRenew(plan({}), null)).toBe(false);
  });

  it("the default is the brand's when it says, else on", () => {
    expect(autoRenewDefault(FALLBACK_BRAND)).toBe(true);
    expect(autoRenewDefault({ ...FALLBACK_BRAND, autoRenewDefault: false })).toBe(false);
  });

  it('a different renewal choice is a different payment attempt (a new idempotency key)', () => {
    const base = {
      tariffId: 3,
      currency: 'USD',
      method: { provider: 'sandbox' as const, type: '', label: 'Test card' },
      autoRenew: true,
    };
    expect(checkoutAttempt(base)).toBe(checkoutAttempt({ ...base }));
    expect(checkoutAttempt(base)).not.toBe(checkoutAttempt({ ...base, autoRenew: false }));
    expect(checkoutAttempt(base)).not.toBe(checkoutAttempt({ ...base, accountId: 7 }));
  });
});

describe('plans checkout', () => {
  it('offers "Renew automatically" (on) for a renewing plan and method, says one-off otherwise, and sends the choice with Pay', async () => {
    const bodies = stubCheckoutApi();
    const user = userEvent.setup();
    await renderRoute(<PlanCheckout />, '/plans');

    const renew = await screen.findByRole('switch', { name: /^Renew automatically/ });
    expect(renew).toBeChecked();
    // "Cancel anytime" is promised only while the plan renews, and leads to where it is turned off.
    expect(screen.getByRole('link', { name: 'Cancel anytime' }).getAttribute('href')).toBe('/subscription');

    // Cardlink is a one-off payment: no switch, no "Cancel anytime".
    await user.click(screen.getByRole('radio', { name: 'Cardlink' }));
    expect(await screen.findByText('One-off payment: this plan does not renew')).toBeTruthy();
    expect(screen.queryByRole('switch')).toBeNull();
    expect(screen.queryByRole('link', { name: 'Cancel anytime' })).toBeNull();

    // A lifetime plan never renews, whatever the method.
    await user.click(screen.getByRole('radio', { name: 'Test card' }));
    await user.click(screen.getByTestId('plan-lifetime'));
    expect(await screen.findByText('One-off payment: this plan does not renew')).toBeTruthy();

    // The year with renewal turned off: Pay sends autoRenew false.
    await user.click(screen.getByTestId('plan-1-year'));
    await user.click(await screen.findByRole('switch', { name: /^Renew automatically/ }));
    expect(screen.getByRole('switch', { name: /^Renew automatically/ })).not.toBeChecked();
    expect(screen.queryByRole('link', { name: 'Cancel anytime' })).toBeNull();
    await user.click(screen.getByTestId('pay-button'));
    await waitFor(() => expect(bodies).toHaveLength(1));
    expect(bodies[0]).toMatchObject({ tariffId: 3, provider: 'sandbox', currency: 'USD', autoRenew: false });
  });

  it('a double click on Pay, and Pay again after an error, reach the provider as one payment (one idempotency key)', async () => {
    const bodies = stubCheckoutApi();
    const user = userEvent.setup();
    await renderRoute(<PlanCheckout />, '/plans');
    await screen.findByRole('switch', { name: /^Renew automatically/ });
    await user.dblClick(screen.getByTestId('pay-button'));
    // The answer has no page to go to: the error shows, and Pay can be pressed again.
    expect(await screen.findByRole('alert')).toBeTruthy();
    await user.click(screen.getByTestId('pay-button'));
    await waitFor(() => expect(bodies.length).toBeGreaterThanOrEqual(2));
    expect(new Set(bodies.map((b) => b.idempotencyKey)).size).toBe(1);
    // Turning renewal off is another payment: a new key.
    await user.click(screen.getByRole('switch', { name: /^Renew automatically/ }));
    await user.click(screen.getByTestId('pay-button'));
    await waitFor(() => expect(new Set(bodies.map((b) => b.idempotencyKey)).size).toBe(2));
  });

  it("starts from the brand's default when it has one", async () => {
    setBrand({ ...FALLBACK_BRAND, autoRenewDefault: false });
    stubCheckoutApi();
    await renderRoute(<PlanCheckout />, '/plans');
    expect(await screen.findByRole('switch', { name: /^Renew automatically/ })).not.toBeChecked();
  });

  it("with a captcha, every Pay sends a token of its own: a retry after an error waits for the widget's next one", async () => {
    setBrand({ ...FALLBACK_BRAND, captcha: { provider: 'turnstile', siteKey: 'site-key' } });
    let callback: ((token: string) => void) | null = null;
    window.turnstile = {
      render: (_el, opts) => ((callback = opts.callback as (t: string) => void), 'w1'),
      reset: () => undefined,
    };
    const bodies = stubCheckoutApi();
    const user = userEvent.setup();
    await renderRoute(<PlanCheckout />, '/plans');
    await screen.findByRole('switch', { name: /^Renew automatically/ });
    const script = document.head.querySelector<HTMLScriptElement>('script[src*="challenges.cloudflare.com"]')!;
    act(() => void script.dispatchEvent(new Event('load')));
    await waitFor(() => expect(callback).not.toBeNull());
    act(() => callback!('token-1'));
    await user.click(screen.getByTestId('pay-button'));
    await waitFor(() => expect(bodies).toHaveLength(1));
    expect(bodies[0]!['g-recaptcha-response']).toBe('token-1');
    // The answer has no page to go to: Pay again. The used token is not sent twice; the page waits for a new one.
    expect(await screen.findByRole('alert')).toBeTruthy();
    await user.click(screen.getByTestId('pay-button'));
    expect(await screen.findByText('Complete the security check above to continue.')).toBeTruthy();
    expect(bodies).toHaveLength(1);
    act(() => callback!('token-2'));
    await waitFor(() => expect(bodies).toHaveLength(2));
    expect(bodies[1]!['g-recaptcha-response']).toBe('token-2');
    expect(bodies[1]!.idempotencyKey).toBe(bodies[0]!.idempotencyKey);
    delete window.turnstile;
  });
});
