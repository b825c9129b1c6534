import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { PaymentHistory, PaymentHistoryItem, SubscriptionInfo } from '@warren/contract';
import { renderRoute } from '../../../test/render';
import { stubApi } from '../../../test/http';
import { SubscriptionPage } from './SubscriptionPage';

// The API is mocked at the HTTP boundary (fetch); the api client, React Query, the confirmation
// dialogs and the page are real.
const renewing: SubscriptionInfo = {
  plan: { tariffKey: '1-month', tariffName: '1 Month', lifetime: false },
  status: 'active',
  paidUntil: '2026-12-24T10:00:00.000Z',
  autoRenew: true,
  canAutoRenew: true,
  renewsAt: '2026-12-21T10:00:00.000Z',
  nextCharge: { amountMinor: 1299, currency: 'USD' },
  paymentMethod: { provider: 'sandbox', label: 'Test card •••• 4242' },
  lastRenewalError: null,
  scheduledChange: null,
  canUpdateMethod: true,
};
const paid: PaymentHistoryItem = {
  id: 'pay_1',
  paymentId: 'pay_1',
  kind: 'purchase',
  status: 'succeeded',
  date: '2026-11-24T10:00:00.000Z',
  amountMinor: 1299,
  currency: 'USD',
  provider: 'sandbox',
  tariffName: '1 Month',
  tariffKey: '1-month',
  periodStart: '2026-11-24T10:00:00.000Z',
  periodEnd: '2026-12-24T10:00:00.000Z',
  failureReason: null,
  receiptAvailable: true,
  refundAvailable: true,
  refundRequested: false,
  refundableUntil: '2026-12-01T10:00:00.000Z',
};
const failed: PaymentHistoryItem = {
  ...paid,
  id: 'pay_0',
  paymentId: 'pay_0',
  kind: 'renewal',
  status: 'failed',
  date: '2026-11-20T10:00:00.000Z',
  periodStart: null,
  periodEnd: null,
  failureReason: 'Card declined',
  receiptAvailable: false,
  refundAvailable: false,
  refundableUntil: null,
};
const ok = <T,>(data: T) => ({ status: 200, body: { data } });
const history = (items: PaymentHistoryItem[]): PaymentHistory => ({ items, moneyBackDays: 7 });

afterEach(() => vi.unstubAllGlobals());

/** The switch card's calls (issue 23): nothing to switch to, unless a test says otherwise. */
const noSwitch = {
  'GET billing/subscription/switch/options': ok({
    currentTariffKey: '1-month',
    currency: 'USD',
    options: [],
    providers: [],
  }),
  'GET billing/paymentMethods': ok({ country: 'US', currency: 'USD', methods: [] }),
  'GET billing/address': ok({ address: null }),
};

describe('subscription page', () => {
  it('shows a renewing plan and turns auto-renew off and on, each after a confirmation that says what happens', async () => {
    let info = renewing;
    const api = stubApi({
      ...noSwitch,
      'GET billing/subscription': () => ok(info),
      'GET billing/payments': ok(history([paid])),
      'POST billing/subscription/autoRenew': () => {
        info = {
          ...info,
          autoRenew: !info.autoRenew,
          renewsAt: info.autoRenew ? null : renewing.renewsAt,
          nextCharge: info.autoRenew ? null : renewing.nextCharge,
        };
        return ok(info);
      },
    });
    await renderRoute(<SubscriptionPage />, '/subscription');
    expect(await screen.findByRole('heading', { name: '1 Month' }, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getByTestId('subscription-status')).toHaveTextContent('Active');
    expect(screen.getByTestId('paid-until')).toHaveTextContent('December 24, 2026');
    expect(screen.getByTestId('renews-on')).toHaveTextContent('December 21, 2026');
    expect(screen.getByTestId('next-charge')).toHaveTextContent('$12.99');
    expect(screen.getByTestId('payment-method')).toHaveTextContent('Test card •••• 4242');

    await userEvent.click(screen.getByRole('button', { name: 'Turn off auto-renew' }));
    const dialog = await screen.findByRole('dialog', {}, { timeout: 5000 });
    expect(dialog).toHaveTextContent('It stays active until December 24, 2026');
    // Keeping it on changes nothing.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Keep it on' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument(), { timeout: 5000 });
    expect(api.count('POST billing/subscription/autoRenew')).toBe(0);

    await userEvent.click(screen.getByRole('button', { name: 'Turn off auto-renew' }));
    await userEvent.click(await screen.findByTestId('confirm-auto-renew-off', {}, { timeout: 5000 }));
    await waitFor(() => expect(screen.getByTestId('auto-renew-state')).toHaveTextContent('Off'), { timeout: 5000 });
    expect(screen.queryByTestId('next-charge')).not.toBeInTheDocument();
    expect(api.count('POST billing/subscription/autoRenew')).toBe(1);

    await userEvent.click(screen.getByRole('button', { name: 'Turn on auto-renew' }));
    expect(await screen.findByRole('dialog', {}, { timeout: 5000 })).toHaveTextContent('until you turn auto-renew off');
    await userEvent.click(screen.getByTestId('confirm-auto-renew-on'));
    await waitFor(() => expect(screen.getByTestId('auto-renew-state')).toHaveTextContent('On'), { timeout: 5000 });
    expect(api.count('POST billing/subscription/autoRenew')).toBe(2);
  });

  it('after a refund or the end of a paid plan: the free plan by name, and a badge that says the paid plan ended (not "Free" beside "Expired")', async () => {
    stubApi({
      ...noSwitch,
      'GET billing/subscription': ok({
        ...renewing,
        plan: { tariffKey: 'free-plan', tariffName: 'Free', lifetime: false },
        status: 'expired',
        paidUntil: null,
        autoRenew: false,
        canAutoRenew: false,
        renewsAt: null,
        nextCharge: null,
        paymentMethod: null,
      }),
      'GET billing/payments': ok(
        history([{ ...paid, status: 'refunded', refundAvailable: false, refundableUntil: null }]),
      ),
    });
    await renderRoute(<SubscriptionPage />, '/subscription');
    expect(await screen.findByTestId('subscription-status', {}, { timeout: 5000 })).toHaveTextContent(
      'Paid plan ended',
    );
    expect(screen.getByText('You are on the free plan.')).toBeInTheDocument();
  });

  it('an abandoned checkout reads "Not completed" with what it means, not "Processing" beside real payments', async () => {
    const abandoned: PaymentHistoryItem = {
      ...paid,
      id: 'pay_2',
      paymentId: 'pay_2',
      status: 'expired',
      date: '2026-11-25T10:00:00.000Z',
      periodStart: null,
      periodEnd: null,
      receiptAvailable: false,
      refundAvailable: false,
      refundableUntil: null,
    };
    stubApi({
      ...noSwitch,
      'GET billing/subscription': ok(renewing),
      'GET billing/payments': ok(history([abandoned, paid])),
    });
    await renderRoute(<SubscriptionPage />, '/subscription');
    const rows = await screen.findAllByTestId('history-row', {}, { timeout: 5000 });
    expect(rows[0]).toHaveTextContent('Not completed');
    expect(rows[0]).not.toHaveTextContent('Processing');
    expect(within(rows[0]!).getByTestId('expired-note')).toHaveTextContent('once the payment provider confirms it');
    expect(within(rows[0]!).queryByTestId('download-receipt')).toBeNull();
    expect(rows[1]).toHaveTextContent('Paid');
    expect(within(rows[1]!).queryByTestId('expired-note')).toBeNull();
  });

  it('a lifetime plan says it never renews and offers no switch; a plan without a reusable method says why', async () => {
    stubApi({
      ...noSwitch,
      'GET billing/subscription': ok({
        ...renewing,
        plan: { tariffKey: 'lifetime', tariffName: 'Lifetime', lifetime: true },
        paidUntil: null,
        autoRenew: false,
        canAutoRenew: false,
        renewsAt: null,
        nextCharge: null,
      }),
      'GET billing/payments': ok(history([])),
    });
    await renderRoute(<SubscriptionPage />, '/subscription');
    expect(
      await screen.findByText('Lifetime: it never ends and is never charged again.', {}, { timeout: 5000 }),
    ).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /auto-renew/ })).not.toBeInTheDocument();
    expect(await screen.findByTestId('history-empty', {}, { timeout: 5000 })).toHaveTextContent('No payments yet.');
  });

  it('lists payments and failed attempts, and refunds inside the window after a confirmation', async () => {
    let items = [paid, failed];
    const api = stubApi({
      ...noSwitch,
      'GET billing/subscription': ok(renewing),
      'GET billing/payments': () => ok(history(items)),
      'POST billing/payments/pay_1/refund': () => {
        items = [
          {
            ...paid,
            id: 'pay_1:refund',
            kind: 'refund',
            status: 'refunded',
            receiptAvailable: false,
            refundAvailable: false,
            refundableUntil: null,
          },
          { ...paid, status: 'refunded', refundAvailable: false, refundableUntil: null },
          failed,
        ];
        return ok({ ...history(items), outcome: 'refunded' });
      },
    });
    await renderRoute(<SubscriptionPage />, '/subscription');
    const table = await screen.findByTestId('history-table', {}, { timeout: 5000 });
    const rows = within(table).getAllByTestId('history-row');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent('Payment: 1 Month');
    expect(rows[0]).toHaveTextContent('$12.99');
    expect(rows[0]).toHaveTextContent('Paid');
    expect(rows[0]).toHaveTextContent('Refund possible until December 1, 2026');
    expect(rows[1]).toHaveTextContent('Renewal: 1 Month');
    expect(rows[1]).toHaveTextContent('Failed');
    expect(rows[1]).toHaveTextContent('Reason: Card declined');
    expect(within(rows[1]!).queryByRole('button')).not.toBeInTheDocument();
    expect(screen.getByText('You can get your money back within 7 days of a payment.')).toBeInTheDocument();

    await userEvent.click(within(rows[0]!).getByRole('button', { name: /Ask for a refund of Payment: 1 Month/ }));
    const dialog = await screen.findByRole('dialog', {}, { timeout: 5000 });
    expect(dialog).toHaveTextContent('$12.99 goes back');
    expect(dialog).toHaveTextContent('November 24, 2026 – December 24, 2026');
    await userEvent.click(within(dialog).getByTestId('confirm-refund'));
    await waitFor(
      () => expect(within(screen.getByTestId('history-table')).getAllByTestId('history-row')).toHaveLength(3),
      { timeout: 5000 },
    );
    expect(api.count('POST billing/payments/pay_1/refund')).toBe(1);
    expect(screen.queryByRole('button', { name: /Ask for a refund/ })).not.toBeInTheDocument();
    expect(
      await screen.findByText('Refund done: $12.99 is on its way back.', {}, { timeout: 5000 }),
    ).toBeInTheDocument();
    // The plan is read again (a period went back).
    expect(api.count('GET billing/subscription')).toBeGreaterThanOrEqual(2);
  });

  it('a Payssion or Cardlink payment: the refund is requested, the page says support refunds it and the row shows it instead of the button', async () => {
    const payssion: PaymentHistoryItem = { ...paid, provider: 'payssionv2' };
    let items = [payssion];
    const api = stubApi({
      ...noSwitch,
      'GET billing/subscription': ok(renewing),
      'GET billing/payments': () => ok(history(items)),
      'POST billing/payments/pay_1/refund': () => {
        items = [{ ...payssion, refundAvailable: false, refundRequested: true }];
        return ok({ ...history(items), outcome: 'requested' });
      },
    });
    await renderRoute(<SubscriptionPage />, '/subscription');
    const table = await screen.findByTestId('history-table', {}, { timeout: 5000 });
    expect(within(table).queryByTestId('refund-requested')).not.toBeInTheDocument();
    await userEvent.click(within(table).getByRole('button', { name: /Ask for a refund of Payment: 1 Month/ }));
    await userEvent.click(await screen.findByTestId('confirm-refund', {}, { timeout: 5000 }));
    expect(
      await screen.findByText(
        'Refund requested: support will return $12.99 to you, and the plan ends then.',
        {},
        { timeout: 5000 },
      ),
    ).toBeInTheDocument();
    const row = within(screen.getByTestId('history-table')).getAllByTestId('history-row')[0]!;
    expect(within(row).getByTestId('refund-requested')).toHaveTextContent('Refund requested');
    expect(row).toHaveTextContent('Support will refund it; the plan ends then.');
    expect(row).toHaveTextContent('Paid');
    expect(within(row).queryByRole('button', { name: /Ask for a refund/ })).not.toBeInTheDocument();
    expect(api.count('POST billing/payments/pay_1/refund')).toBe(1);
  });

  it('a refused refund shows the server’s reason', async () => {
    stubApi({
      ...noSwitch,
      'GET billing/subscription': ok(renewing),
      'GET billing/payments': ok(history([paid])),
      'POST billing/payments/pay_1/refund': {
        status: 422,
        body: {
          message: 'x',
          errors: { payment: ['The 7-day money-back window for this payment ended on 2026-12-01.'] },
        },
      },
    });
    await renderRoute(<SubscriptionPage />, '/subscription');
    await userEvent.click(await screen.findByRole('button', { name: /Ask for a refund/ }, { timeout: 5000 }));
    await userEvent.click(await screen.findByTestId('confirm-refund', {}, { timeout: 5000 }));
    expect(
      await screen.findByText(
        'The 7-day money-back window for this payment ended on 2026-12-01.',
        {},
        { timeout: 5000 },
      ),
    ).toBeInTheDocument();
  });

  it('downloads the receipt in the page language under the server’s file name', async () => {
    const api = stubApi({
      ...noSwitch,
      'GET billing/subscription': ok(renewing),
      'GET billing/payments': ok(history([paid])),
      'GET billing/payments/pay_1/receipt': ok({}),
    });
    const created = vi.fn(() => 'blob:receipt');
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: created, revokeObjectURL: vi.fn() }));
    const clicked: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(`${this.href} ${this.download}`);
    });
    await renderRoute(<SubscriptionPage />, '/subscription');
    await userEvent.click(
      await screen.findByRole('button', { name: /Download the receipt for Payment: 1 Month/ }, { timeout: 5000 }),
    );
    await waitFor(() => expect(clicked).toEqual(['blob:receipt receipt-pay_1.pdf']), { timeout: 5000 });
    expect(api.count('GET billing/payments/pay_1/receipt')).toBe(1);
    click.mockRestore();
  });

  it('says it is loading, then offers a retry when the plan could not be loaded', async () => {
    let fail = true;
    const api = stubApi({
      ...noSwitch,
      'GET billing/subscription': () => (fail ? { status: 500, body: { message: 'Internal' } } : ok(renewing)),
      'GET billing/payments': ok(history([])),
    });
    await renderRoute(<SubscriptionPage />, '/subscription');
    expect(screen.getAllByRole('status')[0]).toHaveTextContent(/Loading your/);
    const alert = await screen.findByTestId('error-state', {}, { timeout: 5000 });
    expect(alert).toHaveTextContent('Your subscription could not be loaded.');
    fail = false;
    await userEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { name: '1 Month' }, { timeout: 5000 })).toBeInTheDocument();
    expect(api.count('GET billing/subscription')).toBeGreaterThanOrEqual(2);
  });
});
