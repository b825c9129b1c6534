import { beforeEach, describe, expect, it, vi } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HTTPError, type NormalizedOptions } from 'ky';
import type { User } from '@warren/contract';

const loginFn = vi.fn();
vi.mock('../api/login', async () => {
  const { useMutation } = await import('@tanstack/react-query');
  return { useLogin: () => useMutation({ mutationFn: (body: unknown) => loginFn(body) }) };
});
vi.mock('../../../lib/notify', () => ({ snackbar: vi.fn() }));

import { renderRoute } from '../../../test/render';
import { snackbar } from '../../../lib/notify';
import { SignInPage } from './SignInPage';
import { testUser } from '../../../test/fixtures';

function apiError(status: number, body: unknown) {
  const err = new HTTPError(
    new Response(null, { status }),
    new Request('http://localhost/api/users/login'),
    {} as NormalizedOptions,
  );
  return Object.assign(err, { body });
}

const user: User = testUser({ twoFactorEnabled: true });

beforeEach(() => {
  localStorage.clear();
  loginFn.mockReset();
  vi.mocked(snackbar).mockClear();
});

async function fillAndSubmit() {
  const u = userEvent.setup();
  await u.type(screen.getByRole('textbox', { name: /email/i }), 'ann@example.com');
  await u.type(screen.getByLabelText(/^password/i), 'secret-pass');
  await u.click(screen.getByRole('button', { name: 'Sign in' }));
  return u;
}

describe('SignInPage', () => {
  it('shows the server message and field error on wrong credentials', async () => {
    loginFn.mockRejectedValue(
      apiError(422, {
        message: 'These credentials do not match our records.',
        errors: { email: ['These credentials do not match our records.'] },
      }),
    );
    await renderRoute(<SignInPage />, '/sign-in');
    await fillAndSubmit();
    expect(await screen.findByText('These credentials do not match our records.')).toBeInTheDocument();
    expect(snackbar).toHaveBeenCalledWith('These credentials do not match our records.');
  });

  it('asks for the authenticator code when the server wants one, then signs in with it', async () => {
    loginFn.mockRejectedValueOnce(
      apiError(422, {
        message: 'Two-factor code required.',
        errors: { otp: ['Enter the code from your authenticator app.'] },
      }),
    );
    loginFn.mockResolvedValueOnce({ user, token: 'tok' });
    const { router } = await renderRoute(<SignInPage />, '/sign-in', [
      { path: '/dashboard', element: <p>dashboard</p> },
    ]);
    const u = await fillAndSubmit();
    const otp = await screen.findByRole('textbox', { name: 'Authentication code' });
    expect(snackbar).not.toHaveBeenCalled();
    await u.type(otp, '123456');
    await u.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('dashboard')).toBeInTheDocument();
    expect(loginFn).toHaveBeenLastCalledWith(
      expect.objectContaining({ email: 'ann@example.com', password: 'secret-pass', otp: '123456' }),
    );
    expect(router.state.location.pathname).toBe('/dashboard');
    expect(localStorage.getItem('token')).toBe('tok');
  });

  it('sends an unverified user to /plans after login', async () => {
    loginFn.mockResolvedValue({ user: { ...user, verified: 0 }, token: 'tok' });
    const { router } = await renderRoute(<SignInPage />, '/sign-in', [{ path: '/plans', element: <p>plans</p> }]);
    await fillAndSubmit();
    expect(await screen.findByText('plans')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/plans');
  });
});
