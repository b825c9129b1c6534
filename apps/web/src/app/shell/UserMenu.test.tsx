import { afterEach, describe, expect, it } from 'vitest';
import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { User } from '@warren/contract';
import { renderRoute } from '../../test/render';
import { session } from '../../lib/session';
import { UserMenu } from './UserMenu';

const user: User = {
  id: 7,
  email: 'ann@example.com',
  verified: 1,
  accountStatus: 'Active',
  firstName: 'Ann',
  secondName: 'Lee',
  language: 'en',
  isPostAffiliateAvailable: false,
  isWgSectionAvailable: false,
  twoFactorEnabled: false,
  subscriptionData: { tariffName: 'Free', tariffKey: 'free-plan', expiresAt: null },
};

afterEach(() => localStorage.clear());

describe('user menu', () => {
  it('shows the initials at once and opens on the first press, before the menu code had arrived', async () => {
    act(() => session.setUser(user));
    await renderRoute(<UserMenu />);
    const button = screen.getByRole('button', { name: 'Account menu' });
    expect(button).toHaveTextContent('AN');
    expect(screen.queryByRole('menu')).toBeNull();

    await userEvent.setup().click(button);
    const menu = await screen.findByRole('menu');
    expect(menu).toHaveTextContent('Ann Lee');
    expect(menu).toHaveTextContent('ann@example.com');
    expect(screen.getByRole('menuitem', { name: 'Profile' })).toBeVisible();
    expect(screen.getByRole('menuitem', { name: 'Log out' })).toBeVisible();
  });
});
