import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TariffPrice } from '@warren/contract';
import { FALLBACK_BRAND, setBrand } from '../../../lib/brand';
import { session } from '../../../lib/session';
import { testUser } from '../../../test/fixtures';
import { stubApi } from '../../../test/http';
import { renderRoute } from '../../../test/render';
import { CheckoutPage } from './CheckoutPage';

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

/** The API at the HTTP boundary; returns the paths and JSON bodies the page posts, in order. */
function stubCheckoutApi() {
  stubApi({
    'GET ip/info': { status: 200, body: { data: { code: 'US', currency: 'USD' } } },
    'GET billing/getCurrencies': { status: 200, body: { data: { currencies: ['USD'], default: 'USD' } } },
    'GET billing/getLandingPriceList': {
      status: 200,
      body: {
        data: {
          currency: 'USD',
          priceList: 'default',
          promo: null,
          plans: [
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
          ],
        },
      },
    },
    'GET billing/paymentMethods': {
      status: 200,
      body: {
        data: {
          country: 'US',
          currency: 'USD',
          methods: [
            { provider: 'cardlink', type: '', label: 'Cardlink' },
            { provider: 'stripe', type: 'card', label: 'Card' },
          ],
        },
      },
    },
    'POST users/register': {
      status: 200,
      body: { data: { user: testUser({ id: 42, email: 'new@example.com' }), token: 'tok' } },
    },
    'POST billing/createPayment': {
      status: 200,
      body: { data: { paymentId: 'p1', provider: 'stripe', amount: 5999, currency: 'USD' } },
    },
  });
  const posts: { path: string; body: Record<string, unknown> }[] = [];
  const answer = globalThis.fetch;
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    if (input instanceof Request && input.method === 'POST')
      posts.push({
        path: new URL(input.url).pathname,
        body: JSON.parse(await input.clone().text()) as Record<string, unknown>,
      });
    return answer(input, init);
  });
  return posts;
}

afterEach(async () => {
  await session.signOut({ callApi: false, navigate: false });
  vi.unstubAllGlobals();
});

describe('one-step checkout', () => {
  it('a one-off method says the plan does not renew; a renewing one offers "Renew automatically"; Pay signs up, then pays with the choice', async () => {
    const posts = stubCheckoutApi();
    const user = userEvent.setup();
    await renderRoute(<CheckoutPage />, '/checkout');

    // The first method is Cardlink: a one-off payment, and no "Cancel anytime" to promise.
    expect(await screen.findByText('One-off payment: this plan does not renew')).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Cancel anytime' })).toBeNull();

    await user.click(screen.getByRole('radio', { name: 'Card' }));
    expect(await screen.findByRole('switch', { name: /^Renew automatically/ })).toBeChecked();
    expect(screen.getByRole('link', { name: 'Cancel anytime' })).toHaveAttribute('href', '/subscription');

    await user.type(screen.getByRole('textbox', { name: /email/i }), 'new@example.com');
    await user.type(screen.getByLabelText(/^password/i), 'a long password');
    await user.click(screen.getByTestId('pay-button'));

    await waitFor(() =>
      expect(posts.map((p) => p.path)).toEqual(['/api/users/register', '/api/billing/createPayment']),
    );
    expect(posts[1]!.body).toMatchObject({
      tariffId: 3,
      currency: 'USD',
      provider: 'stripe',
      type: 'card',
      autoRenew: true,
    });
  });

  it('with a captcha, the one-step sign-up and its payment each send a token of their own from the one widget', async () => {
    setBrand({ ...FALLBACK_BRAND, captcha: { provider: 'turnstile', siteKey: 'site-key' } });
    let callback: ((token: string) => void) | null = null;
    let resets = 0;
    window.turnstile = {
      render: (_el, opts) => ((callback = opts.callback as (t: string) => void), 'w1'),
      reset: () => void (resets += 1),
    };
    const posts = stubCheckoutApi();
    const user = userEvent.setup();
    await renderRoute(<CheckoutPage />, '/checkout');
    expect(screen.getAllByTestId('captcha')).toHaveLength(1);
    act(
      () =>
        void document.head
          .querySelector<HTMLScriptElement>('script[src*="challenges.cloudflare.com"]')!
          .dispatchEvent(new Event('load')),
    );
    await waitFor(() => expect(callback).not.toBeNull());
    act(() => callback!('token-1'));
    await user.type(screen.getByRole('textbox', { name: /email/i }), 'new@example.com');
    await user.type(screen.getByLabelText(/^password/i), 'a long password');
    await user.click(screen.getByTestId('pay-button'));
    // Signed up with the first token; the payment waits for the widget's next one (the provider made it after the reset).
    await waitFor(() => expect(posts.map((p) => p.path)).toEqual(['/api/users/register']));
    await waitFor(() => expect(resets).toBe(1));
    act(() => callback!('token-2'));
    await waitFor(() =>
      expect(posts.map((p) => p.path)).toEqual(['/api/users/register', '/api/billing/createPayment']),
    );
    expect(posts.map((p) => p.body['g-recaptcha-response'])).toEqual(['token-1', 'token-2']);
    delete window.turnstile;
    setBrand(FALLBACK_BRAND);
  });
});
