import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HTTPError, type NormalizedOptions } from 'ky';

const verifyFn = vi.fn();
const resendFn = vi.fn();
vi.mock('../../../lib/account-api', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  verifyUser: (body: unknown) => verifyFn(body),
}));
vi.mock('../api/resend-verification-by-link', () => ({ resendVerificationByLink: (body: unknown) => resendFn(body) }));
vi.mock('../../../lib/notify', () => ({ snackbar: vi.fn() }));

import { renderRoute } from '../../../test/render';
import { SignInPage } from './SignInPage';

function apiError(status: number, body: unknown) {
  const err = new HTTPError(
    new Response(null, { status }),
    new Request('http://localhost/api/users/verifyUser'),
    {} as NormalizedOptions,
  );
  return Object.assign(err, { body });
}

beforeEach(() => {
  verifyFn.mockReset();
  resendFn.mockReset();
});

describe('SignInPage verification links', () => {
  it('a link opened again says the account is already verified', async () => {
    verifyFn.mockRejectedValue(apiError(409, { message: 'Your account is already verified. Please sign in.' }));
    await renderRoute(<SignInPage />, '/sign-in?userId=7&token=used-token');
    expect(await screen.findByTestId('verify-already')).toHaveTextContent(
      'Your account is already verified. Please sign in.',
    );
    expect(screen.queryByRole('button', { name: 'Resend Email' })).toBeNull();
  });

  it('a failed link offers "Resend Email" where the message points to it, and sends the link ids', async () => {
    verifyFn.mockRejectedValue(apiError(422, { message: 'This verification link is invalid or has expired.' }));
    resendFn.mockResolvedValue(undefined);
    await renderRoute(<SignInPage />, '/sign-in?userId=7&token=old-token');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Use the "Resend Email" button.');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Resend Email' }));
    expect(resendFn).toHaveBeenCalledWith({ userId: 7, token: 'old-token' });
    expect(await screen.findByText(/a new email is on its way/)).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Resend Email' })).toBeNull();
  });
});
