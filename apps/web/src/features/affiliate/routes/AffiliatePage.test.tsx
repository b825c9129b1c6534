import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubApi } from '../../../test/http';
import { renderRoute } from '../../../test/render';
import { AffiliatePage } from './AffiliatePage';

const STATS = {
  referralId: 'ref123',
  link: 'http://localhost/checkout?referralID=ref123',
  clicks: 7,
  signups: 3,
  payingReferrals: 2,
  commissionPercent: 25,
  earnings: [
    { currency: 'USD', amount: 649 },
    { currency: 'EUR', amount: 0 },
  ],
  portalUrl: null,
};

afterEach(() => vi.unstubAllGlobals());

describe('affiliate page', () => {
  it('shows the referral link, the counts and the earnings per currency (none in a currency with nothing earned)', async () => {
    stubApi({ 'GET affiliate/stats': { status: 200, body: { data: STATS } } });
    await renderRoute(<AffiliatePage />, '/affiliate');
    expect(await screen.findByTestId('affiliate-clicks')).toHaveTextContent('7');
    expect(screen.getByTestId('affiliate-signups')).toHaveTextContent('3');
    expect(screen.getByTestId('affiliate-paying')).toHaveTextContent('2');
    expect(screen.getByTestId('affiliate-earnings').textContent).toBe('$6.49');
    expect(screen.getByDisplayValue(STATS.link)).toBeTruthy();
  });

  it('a failed load is an error with a retry that asks again', async () => {
    let fail = true;
    const api = stubApi({
      'GET affiliate/stats': () =>
        fail ? { status: 500, body: { message: 'down' } } : { status: 200, body: { data: STATS } },
    });
    await renderRoute(<AffiliatePage />, '/affiliate');
    expect(await screen.findByText('The affiliate statistics could not be loaded.')).toBeTruthy();
    fail = false;
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByTestId('affiliate-clicks')).toHaveTextContent('7');
    expect(api.count('GET affiliate/stats')).toBeGreaterThanOrEqual(2);
  });
});
