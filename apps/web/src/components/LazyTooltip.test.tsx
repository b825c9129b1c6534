import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderRoute } from '../test/render';
import { LazyTooltip } from './LazyTooltip';

describe('LazyTooltip', () => {
  it('shows the target at once, and a tooltip asked for by keyboard before its code arrived opens on the same focused target', async () => {
    await renderRoute(
      <LazyTooltip label="Works with every protocol but WireGuard" events={{ hover: true, focus: true, touch: true }}>
        <button type="button">About the ad blocker</button>
      </LazyTooltip>,
    );
    expect(screen.getByRole('button', { name: 'About the ad blocker' })).toBeVisible();
    expect(screen.queryByRole('tooltip')).toBeNull();

    await userEvent.setup().tab();
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Works with every protocol but WireGuard');
    // The tooltip wraps a new element: focus was given back to it.
    expect(screen.getByRole('button', { name: 'About the ad blocker' })).toHaveFocus();
  });
});
