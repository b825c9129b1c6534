import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { User } from '@warren/contract';

const get = vi.fn();
const post = vi.fn();
vi.mock('./api-client', () => ({
  api: { get: (...a: unknown[]) => get(...a), post: (...a: unknown[]) => post(...a) },
  setUnauthorizedHandler: vi.fn(),
}));

import { initSession, resetSessionForTests, session } from './session';
import { setNavigator } from './navigation';
import { getCookie } from './cookies';
import { testUser } from '../test/fixtures';

const user: User = testUser({ id: 3 });

const navigate = vi.fn();

beforeEach(() => {
  localStorage.clear();
  resetSessionForTests();
  get.mockReset();
  post.mockReset();
  navigate.mockReset();
  setNavigator(navigate);
  window.history.replaceState(null, '', '/');
});

describe('session start-up', () => {
  it('restores a stored user and token at once and refreshes in the background', async () => {
    localStorage.setItem('token', 'tok');
    localStorage.setItem('user', JSON.stringify(user));
    const fresh = { ...user, firstName: 'Annie' };
    get.mockReturnValue({ json: () => Promise.resolve({ data: fresh }) });
    await initSession('');
    expect(session.get().authenticated).toBe(true);
    await vi.waitFor(() => expect(session.get().user?.firstName).toBe('Annie'));
    expect(get).toHaveBeenCalledWith('users/info/get');
  });

  it('?t= sets the token, forgets the stored user and waits for the user info', async () => {
    localStorage.setItem('user', JSON.stringify({ ...user, email: 'old@example.com' }));
    get.mockReturnValue({ json: () => Promise.resolve({ data: user }) });
    await initSession('?t=fresh-token');
    expect(localStorage.getItem('token')).toBe('fresh-token');
    expect(session.get().user?.email).toBe('ann@example.com');
    expect(session.get().authenticated).toBe(true);
  });

  it('without a token nobody is logged in', async () => {
    localStorage.setItem('user', JSON.stringify(user));
    await initSession('');
    expect(session.get().authenticated).toBe(false);
    expect(localStorage.getItem('user')).toBeNull();
  });
});

describe('sign-in and sign-out', () => {
  it('stores the session and sets isUserExist; sign-out clears everything and goes to /auth', async () => {
    session.signedIn({ user, token: 'tok' });
    expect(localStorage.getItem('token')).toBe('tok');
    expect(getCookie('isUserExist')).toBe('1');
    session.setPaymentStatus('processing');
    post.mockReturnValue(Promise.reject(new Error('offline')));
    await session.signOut();
    expect(post).toHaveBeenCalledWith('users/logout', expect.anything());
    expect(localStorage.getItem('token')).toBeNull();
    expect(localStorage.getItem('user')).toBeNull();
    expect(getCookie('isUserExist')).toBeNull();
    expect(session.get()).toMatchObject({ authenticated: false, user: null, paymentStatus: 'processed' });
    expect(navigate).toHaveBeenCalledWith('/auth', { replace: true });
  });

  it('stays on a checkout page when signing out there', async () => {
    session.signedIn({ user, token: 'tok' });
    window.history.replaceState(null, '', '/checkout-ru');
    post.mockReturnValue(Promise.resolve());
    await session.signOut();
    expect(navigate).not.toHaveBeenCalled();
  });
});

describe('setUser', () => {
  it('does not wake the pages when the refreshed user is the one they already show, and does when it changed', () => {
    session.signedIn({ user, token: 't'.repeat(40) });
    const listener = vi.fn();
    const stop = session.subscribe(listener);
    session.setUser({ ...user, subscriptionData: { ...user.subscriptionData } });
    expect(listener).not.toHaveBeenCalled();
    const paid = {
      ...user,
      subscriptionData: { tariffName: '1 Month', tariffKey: '1-month', expiresAt: '2027-01-01T00:00:00.000Z' },
    };
    session.setUser(paid);
    expect(listener).toHaveBeenCalledTimes(1);
    expect(session.get().user).toEqual(paid);
    expect(JSON.parse(localStorage.getItem('user')!)).toEqual(paid);
    stop();
  });
});
