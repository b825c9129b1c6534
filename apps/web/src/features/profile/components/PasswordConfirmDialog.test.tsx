import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { expect, it, vi } from 'vitest';
import { renderRoute } from '../../../test/render';
import { PasswordConfirmDialog } from './PasswordConfirmDialog';

it('refuses an empty password, shows a failure under the field, and passes the password on', async () => {
  const onConfirm = vi.fn().mockRejectedValueOnce(new Error('network down')).mockResolvedValueOnce(undefined);
  await renderRoute(<PasswordConfirmDialog opened onClose={() => undefined} title="Delete your account?" lead={<p>Gone for good.</p>} confirmLabel="Delete" onConfirm={onConfirm} />);
  const u = userEvent.setup();
  const dialog = await screen.findByRole('dialog', { name: 'Delete your account?' });
  expect(dialog).toHaveTextContent('Gone for good.');

  await u.click(screen.getByRole('button', { name: 'Delete' }));
  expect(await screen.findByText('Enter your password.')).toBeVisible();
  expect(onConfirm).not.toHaveBeenCalled();

  const field = screen.getByLabelText('Current password');
  await u.type(field, 'my secret 1');
  await u.click(screen.getByRole('button', { name: 'Delete' }));
  expect(onConfirm).toHaveBeenLastCalledWith('my secret 1');
  expect(await screen.findByText('Could not complete. Please try again.')).toBeVisible();

  await u.click(screen.getByRole('button', { name: 'Delete' }));
  await waitFor(() => expect(onConfirm).toHaveBeenCalledTimes(2));
  await waitFor(() => expect(field).toHaveValue(''));
});
