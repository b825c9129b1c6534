import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubApi } from '../../../test/http';
import { renderRoute } from '../../../test/render';
import { RewardsPage } from './RewardsPage';

const base = {
  friendId: 'f1',
  link: 'http://localhost/sign-up?friendID=f1',
  daysPerFriend: 14,
  totalDays: 0,
  invited: 0,
  ledger: [],
};

afterEach(() => vi.unstubAllGlobals());

describe('rewards page', () => {
  it('a new member sees the friend link, the days per friend and an empty ledger', async () => {
    stubApi({ 'GET rewards': { status: 200, body: { data: base } } });
    await renderRoute(<RewardsPage />, '/rewards');
    expect(await screen.findByTestId('rewards-days-per-friend')).toHaveTextContent('14');
    expect(screen.getByTestId('rewards-ledger-empty')).toBeTruthy();
    expect(screen.getByDisplayValue(base.link)).toBeTruthy();
  });

  it('lists each reward with who it came from and its days', async () => {
    const ledger = [
      { id: 1, days: 14, reason: 'invited-friend', friend: 'b***@example.com', createdAt: '2026-01-05T10:00:00Z' },
      { id: 2, days: 14, reason: 'invited-by-friend', friend: 'c***@example.com', createdAt: '2026-01-06T10:00:00Z' },
    ];
    stubApi({ 'GET rewards': { status: 200, body: { data: { ...base, totalDays: 28, invited: 1, ledger } } } });
    await renderRoute(<RewardsPage />, '/rewards');
    const table = await screen.findByTestId('rewards-ledger');
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent('You invited a friend');
    expect(rows[0]).toHaveTextContent('b***@example.com');
    expect(rows[0]).toHaveTextContent('+14');
    expect(screen.getByTestId('rewards-total-days')).toHaveTextContent('28');
  });

  it('a failed load says so', async () => {
    stubApi({ 'GET rewards': { status: 500, body: { message: 'down' } } });
    await renderRoute(<RewardsPage />, '/rewards');
    expect(await screen.findByText('Your rewards could not be loaded.')).toBeTruthy();
  });
});
