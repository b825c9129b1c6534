import { afterEach, describe, expect, it } from 'vitest';
import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderRoute } from '../../test/render';
import { session } from '../../lib/session';
import { UserMenu } from './UserMenu';
import { testUser } from '../../test/fixtures';

const user = testUser({ id: 7, secondName: 'Lee' });

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
