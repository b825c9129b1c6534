import type { User } from '@warren/contract';

/** A verified, active free-plan user; a test overrides what it looks at. */
export function testUser(overrides: Partial<User> = {}): User {
  return {
    id: 1,
    email: 'ann@example.com',
    verified: 1,
    accountStatus: 'Active',
    firstName: 'Ann',
    secondName: '',
    language: 'en',
    isPostAffiliateAvailable: false,
    isWgSectionAvailable: false,
    twoFactorEnabled: false,
    subscriptionData: { tariffName: 'Free', tariffKey: 'free-plan', expiresAt: null },
    ...overrides,
  };
}
