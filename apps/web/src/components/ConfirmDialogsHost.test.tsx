import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { closeAllDialogs, openConfirm } from '../lib/confirm';
import { renderRoute } from '../test/render';

const ask = (onConfirm: () => void, title = 'Revoke this device?') =>
  act(() => {
    openConfirm({
      title,
      body: 'It stops working at once.',
      confirmLabel: 'Revoke',
      cancelLabel: 'Cancel',
      danger: true,
      confirmTestId: 'confirm-it',
      onConfirm,
    });
  });

describe('confirmation dialogs', () => {
  it('loads on the first request, confirms once, and cancel does nothing', async () => {
    await renderRoute(<p>page</p>);
    expect(screen.queryByRole('dialog')).toBeNull();
    const onConfirm = vi.fn();
    ask(onConfirm);
    const dialog = await screen.findByRole('dialog', { name: 'Revoke this device?' });
    expect(dialog).toHaveTextContent('It stops working at once.');
    const u = userEvent.setup();
    await u.click(screen.getByTestId('confirm-it'));
    expect(onConfirm).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    const other = vi.fn();
    ask(other);
    await u.click(await screen.findByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(other).not.toHaveBeenCalled();
  });

  it('a payment success closes every open dialog', async () => {
    await renderRoute(<p>page</p>);
    ask(() => undefined, 'First?');
    ask(() => undefined, 'Second?');
    await screen.findByRole('dialog', { name: 'Second?' });
    act(() => closeAllDialogs());
    await waitFor(() => expect(screen.queryAllByRole('dialog')).toHaveLength(0));
  });
});
