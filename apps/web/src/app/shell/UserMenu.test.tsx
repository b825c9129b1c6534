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
    // Its name starts with the initials it shows (WCAG 2.5.3, label in name).
    const button = screen.getByRole('button', { name: 'AN, Account menu' });
    expect(button).toHaveTextContent('AN');
    expect(screen.queryByRole('menu')).toBeNull();

    await userEvent.setup().click(button);
    const menu = await screen.findByRole('menu');
    expect(menu).toHaveTextContent('Ann Lee');
    expect(menu).toHaveTextContent('ann@example.com');
    expect(screen.getByRole('menuitem', { name: 'Profile' })).toBeVisible();
    expect(screen.getByRole('menuitem', { name: 'Log out' })).toBeVisible();
    // The colour scheme choice, the current one marked.
    expect(screen.getByRole('menuitemradio', { name: 'System' })).toBeChecked();
    await userEvent.setup().click(screen.getByRole('menuitemradio', { name: 'Dark' }));
    expect(localStorage.getItem('warren-color-scheme')).toBe('dark');
    expect(screen.getByRole('menuitemradio', { name: 'Dark' })).toBeChecked();
    expect(screen.getByRole('menuitemradio', { name: 'System' })).not.toBeChecked();
  });
});
