import { describe, expect, it } from 'vitest';
import { pathAfterLogin, pathAfterSignUp } from './navigation';

describe('pathAfterLogin', () => {
  it.each([
    [0, null, '/plans'],
    [0, '/profile', '/plans'],
    [1, null, '/dashboard'],
    [1, '/profile', '/profile'],
    [1, '/setup/wg', '/setup/wg'],
    [1, '/plans/yearly', '/plans/yearly'],
    [1, '/sign-in', '/dashboard'],
    [1, '/', '/dashboard'],
    [1, '/auth', '/dashboard'],
    [1, '/no-such-page', '/dashboard'],
    [1, '/checkout', '/checkout'],
  ] as const)('verified %i, first path %s → %s', (verified, first, expected) => {
    expect(pathAfterLogin({ verified }, first)).toBe(expected);
  });
});

describe('pathAfterSignUp', () => {
  it('goes to plans, or to the dashboard with a promo code', () => {
    expect(pathAfterSignUp(undefined)).toBe('/plans');
    expect(pathAfterSignUp('')).toBe('/plans');
    expect(pathAfterSignUp('SPRING')).toBe('/dashboard');
  });
});
