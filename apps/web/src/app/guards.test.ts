import { describe, expect, it } from 'vitest';
import type { User } from '@warren/contract';
import { evaluateGuard, payssionHost, type GuardContext, type GuardKind, type GuardResult } from './guards';
import { testUser } from '../test/fixtures';

const active: User = testUser({ secondName: 'Lee' });
const unverified: User = { ...active, verified: 0, accountStatus: 'Inactive' };
const paidUnverified: User = { ...active, verified: 0, accountStatus: 'Active' };
const tester: User = { ...active, email: 'bot@test.warren.invalid' };
const affiliate: User = { ...active, isPostAffiliateAvailable: true };
const wg: User = { ...active, isWgSectionAvailable: true };

function ctx(path: string, over: Partial<GuardContext> = {}): GuardContext {
  return {
    url: new URL(path, 'http://localhost:8181'),
    user: null,
    brand: {
      paymentFirst: false,
      testAccountSuffixes: ['@test.warren.invalid'],
      affiliatePortalUrl: 'https://partners.example.com',
    },
    paymentStatus: 'processed',
    tariffName: null,
    lastPathname: null,
    allowedHosts: ['proxy.example.com'],
    ...over,
  };
}

const ALLOW: GuardResult = { kind: 'allow' };
const to = (path: string, extra: object = {}): GuardResult => ({ kind: 'redirect', to: path, ...extra });
const notVerified = { message: { key: 'guard.notVerified', ms: 8000 } };

const cases: Array<[string, GuardKind, GuardContext, GuardResult]> = [
  // auth pages
  ['guest: anonymous sees sign-in', 'guest', ctx('/sign-in'), ALLOW],
  ['guest: logged in goes to the dashboard', 'guest', ctx('/sign-up', { user: active }), to('/dashboard')],
  [
    'guest: verification link while logged in goes to /plans',
    'guest',
    ctx('/sign-in?userId=7&token=abc', { user: active }),
    to('/plans?userId=7&token=abc'),
  ],
  [
    'guest: one-time link while logged in is handled',
    'guest',
    ctx('/auth?userID=7&token=abc', { user: active }),
    ALLOW,
  ],
  // protected pages
  ['protected: anonymous → sign-in', 'protected', ctx('/dashboard'), to('/sign-in')],
  ['protected: test account → checkout', 'protected', ctx('/dashboard', { user: tester }), to('/checkout')],
  [
    'protected: test account suffix is case-insensitive',
    'protected',
    ctx('/rewards', { user: { ...tester, email: 'BOT@TEST.WARREN.INVALID' } }),
    to('/checkout'),
  ],
  [
    'protected: unverified → plans with the email message',
    'protected',
    ctx('/dashboard', { user: unverified }),
    to('/plans', notVerified),
  ],
  [
    'protected: unverified coming from thank-you stays',
    'protected',
    ctx('/setup', { user: unverified, lastPathname: '/thank-you' }),
    to('/thank-you', notVerified),
  ],
  [
    'protected: payment-first brand message',
    'protected',
    ctx('/dashboard', {
      user: unverified,
      brand: { paymentFirst: true, testAccountSuffixes: [], affiliatePortalUrl: null },
    }),
    to('/plans', { message: { key: 'guard.paymentFirst', ms: 8000 } }),
  ],
  [
    'protected: payment-first brand lets a paid unverified user in',
    'protected',
    ctx('/dashboard', {
      user: paidUnverified,
      brand: { paymentFirst: true, testAccountSuffixes: [], affiliatePortalUrl: null },
    }),
    ALLOW,
  ],
  [
    'protected: verified but not Active is not activated',
    'protected',
    ctx('/dashboard', { user: paidUnverified }),
    to('/plans', notVerified),
  ],
  [
    'protected: payment processing blocks with its own message',
    'protected',
    ctx('/server-locations', { user: active, paymentStatus: 'processing' }),
    to('/plans', { message: { key: 'guard.paymentProcessing', ms: 5000 } }),
  ],
  ['protected: activated user passes', 'protected', ctx('/setup/wg', { user: active }), ALLOW],
  // plans
  ['plans: anonymous → sign-in', 'plans', ctx('/plans'), to('/sign-in')],
  ['plans: unverified user may see plans', 'plans', ctx('/plans', { user: unverified }), ALLOW],
  ['plans: test account may see plans', 'plans', ctx('/plans/yearly', { user: tester }), ALLOW],
  [
    'plans: redirect_status=failed resets and clears the hash',
    'plans',
    ctx('/plans?redirect_status=failed', { user: active }),
    to('/plans', {
      effects: ['resetPaymentStatus', 'clearSubscriptionHash'],
      message: { key: 'payment.failedNotice', ms: 5000 },
    }),
  ],
  [
    'plans: other redirect_status → plans',
    'plans',
    ctx('/plans?redirect_status=succeeded', { user: active }),
    to('/plans'),
  ],
  // thank-you
  ['thank-you: anonymous → sign-in', 'thankYou', ctx('/thank-you'), to('/sign-in')],
  ['thank-you: with a tariff passes', 'thankYou', ctx('/thank-you', { user: active, tariffName: 'Yearly' }), ALLOW],
  [
    'thank-you: no tariff → last path',
    'thankYou',
    ctx('/thank-you', { user: active, lastPathname: '/plans' }),
    to('/plans'),
  ],
  ['thank-you: no tariff, no last path → dashboard', 'thankYou', ctx('/thank-you', { user: active }), to('/dashboard')],
  [
    'thank-you: last path was thank-you → dashboard',
    'thankYou',
    ctx('/thank-you', { user: active, lastPathname: '/thank-you' }),
    to('/dashboard'),
  ],
  [
    'thank-you: failed status → last path',
    'thankYou',
    ctx('/thank-you?redirect_status=failed', { user: active, tariffName: 'Yearly', lastPathname: '/plans' }),
    to('/plans'),
  ],
  // failed payment
  ['failed-payment: anonymous → sign-in', 'failedPayment', ctx('/failed-payment'), to('/sign-in')],
  ['failed-payment: unverified user passes', 'failedPayment', ctx('/failed-payment', { user: unverified }), ALLOW],
  // payment event
  ['paymentEvent: anonymous → sign-in', 'paymentEvent', ctx('/zg/paymentEvent'), to('/sign-in')],
  ['paymentEvent: plain return passes', 'paymentEvent', ctx('/zg/paymentEvent?status=ok', { user: active }), ALLOW],
  [
    'paymentEvent: payssionv2 to a known brand host → its thank-you',
    'paymentEvent',
    ctx('/zg/paymentEvent?payssionv2=proxy.example.com', { user: active }),
    { kind: 'external', url: 'https://proxy.example.com/thank-you', newTab: false },
  ],
  [
    'paymentEvent: payssionv2 to our own host stays',
    'paymentEvent',
    ctx('/zg/paymentEvent?payssionv2=localhost:8181', { user: active }),
    ALLOW,
  ],
  [
    'paymentEvent: payssionv2 to an unknown host is ignored',
    'paymentEvent',
    ctx('/zg/paymentEvent?payssionv2=evil.example.net', { user: active }),
    ALLOW,
  ],
  // affiliate
  ['affiliate: anonymous → sign-in', 'affiliate', ctx('/affiliate'), to('/sign-in')],
  ['affiliate: unverified → plans', 'affiliate', ctx('/affiliate', { user: unverified }), to('/plans', notVerified)],
  ['affiliate: in-app page', 'affiliate', ctx('/affiliate', { user: active }), ALLOW],
  [
    'affiliate: portal user → portal in a new tab, then dashboard',
    'affiliate',
    ctx('/affiliate', { user: affiliate }),
    { kind: 'external', url: 'https://partners.example.com', newTab: true, then: '/dashboard' },
  ],
  [
    'affiliate: portal user without a portal url stays',
    'affiliate',
    ctx('/affiliate', {
      user: affiliate,
      brand: { paymentFirst: false, testAccountSuffixes: [], affiliatePortalUrl: null },
    }),
    ALLOW,
  ],
  // profile
  ['profile: anonymous → sign-in', 'profile', ctx('/profile'), to('/sign-in')],
  ['profile: unverified → plans', 'profile', ctx('/profile', { user: unverified }), to('/plans', notVerified)],
  ['profile: test account may open its profile', 'profile', ctx('/profile', { user: tester }), ALLOW],
  ['profile: activated passes', 'profile', ctx('/profile', { user: active }), ALLOW],
  // set-new-pass
  ['set-new-pass: anonymous → sign-in', 'setNewPass', ctx('/set-new-pass'), to('/sign-in')],
  [
    'set-new-pass: without the WireGuard flag → dashboard',
    'setNewPass',
    ctx('/set-new-pass', { user: active }),
    to('/dashboard'),
  ],
  ['set-new-pass: with the flag passes', 'setNewPass', ctx('/set-new-pass', { user: wg }), ALLOW],
];

describe('evaluateGuard', () => {
  it.each(cases)('%s', (_name, kind, context, expected) => {
    expect(evaluateGuard(kind, context)).toEqual(expected);
  });
});

describe('payssionHost', () => {
  it.each([
    ['https://a.test/zg/paymentEvent?payssionv2=pay.example.com', 'pay.example.com'],
    ['https://a.test/zg/paymentEvent?payssionv2=pay.example.com&x=1', 'pay.example.com'],
    ['https://a.test/zg/paymentEvent/payssionv2=Pay.Example.com', 'pay.example.com'],
    ['https://a.test/zg/paymentEvent?payssionv2=', null],
    ['https://a.test/zg/paymentEvent?payssionv2=javascript:alert(1)', null],
    ['https://a.test/zg/paymentEvent', null],
  ])('%s → %s', (href, expected) => {
    expect(payssionHost(href)).toBe(expected);
  });
});
