import { describe, expect, it } from 'vitest';
import type { User } from '@warren/contract';
import type { RouteObject } from 'react-router';
import { evaluateGuard, type GuardContext, type GuardKind } from './guards';
import type { RouteHandle } from './route-handle';
import { routes } from './router';
import { testUser } from '../test/fixtures';

/**
 * Every guarded route of spec section 2 against every role of section 6, as one explicit table:
 * what each kind of visitor gets on each route. `allow`, a redirect target, or `portal` (the
 * external affiliate portal in a new tab).
 */
const base: User = testUser();

type Role =
  | 'anonymous'
  | 'unactivated'
  | 'activated'
  | 'testAccount'
  | 'portalAffiliate'
  | 'wgUser'
  | 'paymentFirstUnpaid'
  | 'paymentFirstPaid';
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

/** Spec section 2: route → its guard. The test holds the router (router.tsx) to this table. */
const SPEC_ROUTES: Record<string, GuardKind> = {
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
  // Signed-in only: a customer whose plan was refunded, lapsed or never activated still sees their payments and receipts.
  '/subscription': ['/sign-in', A, A, A, A, A, A, A],
  '/set-new-pass': ['/sign-in', '/dashboard', '/dashboard', '/dashboard', '/dashboard', A, '/dashboard', '/dashboard'],
};

function outcome(route: string, role: Role): string {
  const { user, paymentFirst = false } = ROLES[role];
  const ctx: GuardContext = {
    url: new URL(route, 'http://localhost'),
    user,
    brand: {
      paymentFirst,
      testAccountSuffixes: ['@test.warren.invalid'],
      affiliatePortalUrl: 'https://partners.example.com',
    },
    paymentStatus: 'processed',
    tariffName: '1 Month',
    lastPathname: '/plans',
    allowedHosts: [],
  };
  const r = evaluateGuard(ROUTER_GUARDS[route]!, ctx);
  return r.kind === 'allow' ? A : r.kind === 'external' ? 'portal' : r.to;
}

/** What the router itself puts on each path (the guard in its handle), walked from its route tree. */
function guardsOf(tree: RouteObject[], prefix = ''): Record<string, GuardKind> {
  const out: Record<string, GuardKind> = {};
  for (const r of tree) {
    const path = r.index ? prefix || '/' : r.path ? `${prefix}/${r.path}`.replace(/\/+/g, '/') : prefix;
    const kind = (r.handle as RouteHandle | undefined)?.guard;
    if (kind && !r.path?.includes(':')) out[path] = kind;
    if (r.children) Object.assign(out, guardsOf(r.children, path === '/' ? '' : path));
  }
  return out;
}
const ROUTER_GUARDS = guardsOf(routes);

describe('the router carries the guards of spec section 2', () => {
  it("puts the spec's guard on each of its routes", () => {
    for (const [route, kind] of Object.entries(SPEC_ROUTES))
      expect([route, ROUTER_GUARDS[route]]).toEqual([route, kind]);
  });
  it('guards every signed-in page, and each is in the matrix below (a new page needs its row)', () => {
    const guarded = Object.entries(ROUTER_GUARDS)
      .filter(([, kind]) => kind !== 'guest')
      .map(([route]) => route);
    expect(guarded.length).toBeGreaterThanOrEqual(Object.keys(SPEC_ROUTES).length);
    for (const route of guarded)
      expect([
        route,
        route in EXPECTED || (ROUTER_GUARDS[route] === 'protected' && route.startsWith('/setup/')),
      ]).toEqual([route, true]);
  });
});

describe('guards: every route × every role', () => {
  const roles = Object.keys(ROLES) as Role[];
  // Setup's sub-pages are protected like /setup/wg and get its row.
  const rows = Object.keys(ROUTER_GUARDS)
    .filter((r) => ROUTER_GUARDS[r] !== 'guest')
    .map((r) => [r, EXPECTED[r] ?? EXPECTED['/setup/wg']!] as const);
  for (const [route, row] of rows) {
    it.each(roles.map((role, i) => [role, row[i]!] as const))(`${route} as %s → %s`, (role, expected) => {
      expect(outcome(route, role)).toBe(expected);
    });
  }
});
