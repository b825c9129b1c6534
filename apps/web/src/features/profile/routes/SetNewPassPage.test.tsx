import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HTTPError, type NormalizedOptions } from 'ky';

const setFn = vi.fn();
const sendFn = vi.fn();
vi.mock('../api/set-new-password', async () => {
  const { useMutation } = await import('@tanstack/react-query');
  return {
    useSetNewPassword: () => useMutation({ mutationFn: (body: unknown) => setFn(body) }),
    useSendSetPasswordLink: () => useMutation({ mutationFn: () => sendFn() }),
  };
});
vi.mock('../../../lib/notify', () => ({ snackbar: vi.fn() }));

import { renderRoute } from '../../../test/render';
import { SetNewPassPage } from './SetNewPassPage';

beforeEach(() => {
  setFn.mockReset();
  sendFn.mockReset();
});

describe('SetNewPassPage', () => {
  it('without the mailed token it offers to email the link, and shows no password form', async () => {
    sendFn.mockResolvedValue({ message: 'sent' });
    await renderRoute(<SetNewPassPage />, '/set-new-pass');
    expect(screen.queryByLabelText('New password', { exact: true })).toBeNull();
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Email me a link' }));
    expect(sendFn).toHaveBeenCalledTimes(1);
    expect(await screen.findByTestId('set-new-pass-sent')).toBeVisible();
  });

  it('from the link it sends the token with the new password; a spent token asks for a new link', async () => {
    const spent = Object.assign(
      new HTTPError(
        new Response(null, { status: 422 }),
        new Request('http://localhost/api/users/setNewPassword'),
        {} as NormalizedOptions,
      ),
      {
        body: {
          message: 'Open the link we emailed you to set a new password.',
          errors: { token: ['Open the link we emailed you to set a new password.'] },
        },
      },
    );
    setFn.mockRejectedValue(spent);
    await renderRoute(<SetNewPassPage />, '/set-new-pass?token=mailed-token');
    const u = userEvent.setup();
    await u.type(await screen.findByLabelText('New password', { exact: true }), 'another-horse-7');
    await u.type(screen.getByLabelText('Confirm new password'), 'another-horse-7');
    await u.click(screen.getByRole('button', { name: 'Save new password' }));
    expect(setFn).toHaveBeenCalledWith({
      token: 'mailed-token',
      password: 'another-horse-7',
      password_confirmation: 'another-horse-7',
    });
    expect(await screen.findByTestId('set-new-pass-stale')).toHaveTextContent('Ask for a new one.');
  });
});
