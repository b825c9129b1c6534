import { describe, expect, it } from 'vitest';
import type { User } from '@warren/contract';
import { evaluateGuard, type GuardContext, type GuardKind } from './guards';
import { testUser } from '../test/fixtures';

/**
 * Every guarded route of spec section 2 against every role of section 6, as one explicit table:
 * what each kind of visitor gets on each route. `allow`, a redirect target, or `portal` (the
 * external affiliate portal in a new tab).
 */
const base: User = testUser();

type Role = 'anonymous' | 'unactivated' | 'activated' | 'testAccount' | 'portalAffiliate' | 'wgUser' | 'paymentFirstUnpaid' | 'paymentFirstPaid';
const ROLES: Record<Role, { user: User | null; paymentFirst?: boolean }> = {
  anonymous: { user: null },
  unactivated: { user: { ...base, verified: 0, accountStatus: 'Inactive' } },
  activated: { user: base },
  testAccount: { user: { ...base, email: 'qa@test.warren.invalid' } },
  portalAffiliate: { user: { ...base, isPostAffiliateAvailable: true } },
  wgUser: { user: { ...base, isWgSectionAvailable: true } },
  paymentFirstUnpaid: { user: { ...base, accountStatus: 'Inactive' }, paymentFirst: true },
  paymentFirstPaid: { user: { ...base, verified: 0, accountStatus: 'Active' }, paymentFirst: true },
};

/** Route → the guard the router puts on it (router.tsx). */
const ROUTES: Record<string, GuardKind> = {
  '/dashboard': 'protected',
  '/server-locations': 'protected',
  '/setup': 'protected',
  '/setup/wg': 'protected',
  '/rewards': 'protected',
  '/plans': 'plans',
  '/special-plan': 'login',
  '/thank-you': 'thankYou',
  '/failed-payment': 'failedPayment',
  '/zg/paymentEvent': 'paymentEvent',
  '/affiliate': 'affiliate',
  '/profile': 'profile',
  '/set-new-pass': 'setNewPass',
};

const A = 'allow';
// Columns: anonymous, unactivated, activated, testAccount, portalAffiliate, wgUser, paymentFirstUnpaid, paymentFirstPaid
const EXPECTED: Record<string, [string, string, string, string, string, string, string, string]> = {
  '/dashboard': ['/sign-in', '/plans', A, '/checkout', A, A, '/plans', A],
  '/server-locations': ['/sign-in', '/plans', A, '/checkout', A, A, '/plans', A],
  '/setup': ['/sign-in', '/plans', A, '/checkout', A, A, '/plans', A],
  '/setup/wg': ['/sign-in', '/plans', A, '/checkout', A, A, '/plans', A],
  '/rewards': ['/sign-in', '/plans', A, '/checkout', A, A, '/plans', A],
  '/plans': ['/sign-in', A, A, A, A, A, A, A],
  '/special-plan': ['/sign-in', A, A, A, A, A, A, A],
  '/thank-you': ['/sign-in', A, A, A, A, A, A, A],
  '/failed-payment': ['/sign-in', A, A, A, A, A, A, A],
  '/zg/paymentEvent': ['/sign-in', A, A, A, A, A, A, A],
  '/affiliate': ['/sign-in', '/plans', A, A, 'portal', A, '/plans', A],
  '/profile': ['/sign-in', '/plans', A, A, A, A, '/plans', A],
  '/set-new-pass': ['/sign-in', '/dashboard', '/dashboard', '/dashboard', '/dashboard', A, '/dashboard', '/dashboard'],
};

function outcome(route: string, role: Role): string {
  const { user, paymentFirst = false } = ROLES[role];
  const ctx: GuardContext = {
    url: new URL(route, 'http://localhost'),
    user,
    brand: { paymentFirst, testAccountSuffixes: ['@test.warren.invalid'], affiliatePortalUrl: 'https://partners.example.com' },
    paymentStatus: 'processed',
    tariffName: '1 Month',
    lastPathname: '/plans',
    allowedHosts: [],
  };
  const r = evaluateGuard(ROUTES[route]!, ctx);
  return r.kind === 'allow' ? A : r.kind === 'external' ? 'portal' : r.to;
}

describe('guards: every route × every role', () => {
  const roles = Object.keys(ROLES) as Role[];
  for (const [route, row] of Object.entries(EXPECTED)) {
    it.each(roles.map((role, i) => [role, row[i]!] as const))(`${route} as %s → %s`, (role, expected) => {
      expect(outcome(route, role)).toBe(expected);
    });
  }
});
