import { describe, expect, it } from 'vitest';
import { isFreeUser, planLine, showFloatingUpgrade } from './plan';

const free = { subscriptionData: { tariffName: 'Free', tariffKey: 'free-plan', expiresAt: null } };
const paid = { subscriptionData: { tariffName: '1 Year', tariffKey: '1-year', expiresAt: '2030-01-01T00:00:00Z' } };

describe('isFreeUser', () => {
  it('is the free-plan tariff key', () => {
    expect(isFreeUser(free)).toBe(true);
    expect(isFreeUser(paid)).toBe(false);
    expect(isFreeUser(null)).toBe(false);
  });
});

describe('planLine', () => {
  it.each([
    [free, 'desktop', 'upgrade'],
    [paid, 'desktop', 'badge'],
    [free, 'mobile', 'badge'],
    [paid, 'mobile', 'badge'],
  ] as const)('%o on %s → %s', (user, device, trailing) => {
    expect(planLine(user, device)).toEqual({ name: user.subscriptionData.tariffName, trailing });
  });
});

describe('showFloatingUpgrade', () => {
  it.each([
    [free, 'mobile', '/dashboard', true],
    [free, 'mobile', '/profile', true],
    [free, 'mobile', '/thank-you', false],
    [free, 'mobile', '/plans', false],
    [free, 'mobile', '/plans/', false],
    [free, 'mobile', '/plans/1-year', false],
    [free, 'mobile', '/plansx', true],
    [free, 'desktop', '/dashboard', false],
    [paid, 'mobile', '/dashboard', false],
    [null, 'mobile', '/dashboard', false],
  ] as const)('%o on %s at %s → %s', (user, deviceType, pathname, expected) => {
    expect(showFloatingUpgrade({ user, deviceType, pathname })).toBe(expected);
  });
});
