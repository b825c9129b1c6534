import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HTTPError } from 'ky';
import { expect, it, vi } from 'vitest';
import { renderRoute } from '../../../test/render';
import { PasswordConfirmDialog } from './PasswordConfirmDialog';

it('refuses an empty password, shows a failure under the field, and passes the password on', async () => {
  const onConfirm = vi.fn().mockRejectedValueOnce(new Error('network down')).mockResolvedValueOnce(undefined);
  await renderRoute(
    <PasswordConfirmDialog
      opened
      onClose={() => undefined}
      title="Delete your account?"
      lead={<p>Gone for good.</p>}
      confirmLabel="Delete"
      onConfirm={onConfirm}
    />,
  );
  const u = userEvent.setup();
  const dialog = await screen.findByRole('dialog', { name: 'Delete your account?' });
  expect(dialog).toHaveTextContent('Gone for good.');

  await u.click(screen.getByRole('button', { name: 'Delete' }));
  expect(await screen.findByText('Enter your password.')).toBeVisible();
  expect(onConfirm).not.toHaveBeenCalled();

  const field = screen.getByLabelText('Current password');
  await u.type(field, 'my secret 1');
  await u.click(screen.getByRole('button', { name: 'Delete' }));
  expect(onConfirm).toHaveBeenLastCalledWith('my secret 1', '');
  expect(await screen.findByText('Could not complete. Please try again.')).toBeVisible();

  await u.click(screen.getByRole('button', { name: 'Delete' }));
  await waitFor(() => expect(onConfirm).toHaveBeenCalledTimes(2));
  await waitFor(() => expect(field).toHaveValue(''));
});

it("with a code field, asks for both and shows the server's code message under the code", async () => {
  const refusal = Object.assign(
    new HTTPError(
      new Response(null, { status: 422 }),
      new Request('http://localhost/api/profile/2fa/disable'),
      {} as never,
    ),
    {
      body: { message: 'The code is not valid.', errors: { code: ['The code is not valid.'] } },
    },
  );
  const onConfirm = vi.fn().mockRejectedValueOnce(refusal).mockResolvedValueOnce(undefined);
  await renderRoute(
    <PasswordConfirmDialog
      opened
      onClose={() => undefined}
      title="Turn off two-factor sign-in?"
      lead={<p>Only your password then.</p>}
      confirmLabel="Turn off"
      codeField={{ label: 'Authentication or recovery code', description: 'From your app', required: 'Enter a code.' }}
      onConfirm={onConfirm}
    />,
  );
  const u = userEvent.setup();
  await screen.findByRole('dialog', { name: 'Turn off two-factor sign-in?' });
  await u.type(screen.getByLabelText('Current password'), 'my secret 1');
  await u.click(screen.getByRole('button', { name: 'Turn off' }));
  expect(await screen.findByText('Enter a code.')).toBeVisible();
  expect(onConfirm).not.toHaveBeenCalled();
  await u.type(screen.getByLabelText('Authentication or recovery code'), ' 123456 ');
  await u.click(screen.getByRole('button', { name: 'Turn off' }));
  expect(onConfirm).toHaveBeenLastCalledWith('my secret 1', '123456');
  expect(await screen.findByText('The code is not valid.')).toBeVisible();
  expect(screen.getByLabelText('Authentication or recovery code')).toHaveAttribute('aria-invalid', 'true');
});
