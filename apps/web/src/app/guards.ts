import { SNACKBAR_MS, isActivated, isTestAccountEmail, type PublicBrand, type User } from '@warren/contract';

/**
 * The route guards of spec section 2 ("Guards") and section 6, as pure functions of a
 * snapshot. The router's loaders build the snapshot, call `evaluateGuard` and apply the result.
 */
export type GuardKind =
  | 'guest' // auth pages: logged-in users go to the dashboard
  | 'protected' // dashboard, server-locations, setup/*, rewards
  | 'plans'
  | 'thankYou'
  | 'failedPayment'
  | 'paymentEvent'
  | 'affiliate'
  | 'profile'
  | 'setNewPass'
  | 'login'; // login only (special-plan)

export interface GuardContext {
  url: URL;
  user: User | null;
  brand: Pick<PublicBrand, 'paymentFirst' | 'testAccountSuffixes' | 'affiliatePortalUrl'>;
  paymentStatus: 'processed' | 'processing';
  /** localStorage tariffName */
  tariffName: string | null;
  /** localStorage lastPathname: the page the user is coming from. */
  lastPathname: string | null;
  /** Hosts (besides our own) the payment return may send the browser to: the brand registry. */
  allowedHosts: readonly string[];
}

export type GuardEffect = 'resetPaymentStatus' | 'clearSubscriptionHash';

export interface GuardMessage {
  key: 'guard.notVerified' | 'guard.paymentFirst' | 'guard.paymentProcessing' | 'payment.failedNotice';
  ms: number;
}

export type GuardResult =
  | { kind: 'allow' }
  | { kind: 'redirect'; to: string; message?: GuardMessage; effects?: GuardEffect[] }
  | { kind: 'external'; url: string; newTab: boolean; then?: string };

const allow: GuardResult = { kind: 'allow' };
const redirect = (
  to: string,
  extra: Omit<Extract<GuardResult, { kind: 'redirect' }>, 'kind' | 'to'> = {},
): GuardResult => ({
  kind: 'redirect',
  to,
  ...extra,
});

function requireLogin(ctx: GuardContext): GuardResult | null {
  return ctx.user ? null : redirect('/sign-in');
}

function requireNotTestAccount(ctx: GuardContext): GuardResult | null {
  return ctx.user && isTestAccountEmail(ctx.user.email, ctx.brand.testAccountSuffixes) ? redirect('/checkout') : null;
}

/** Not activated → /plans with the right message; stays put when coming from /thank-you. */
export function activationMessage(ctx: Pick<GuardContext, 'paymentStatus' | 'brand'>): GuardMessage {
  if (ctx.paymentStatus === 'processing') return { key: 'guard.paymentProcessing', ms: SNACKBAR_MS.paymentProcessing };
  if (ctx.brand.paymentFirst) return { key: 'guard.paymentFirst', ms: SNACKBAR_MS.notVerified };
  return { key: 'guard.notVerified', ms: SNACKBAR_MS.notVerified };
}

function requireActivation(ctx: GuardContext): GuardResult | null {
  const u = ctx.user;
  if (!u) return redirect('/sign-in');
  if (ctx.paymentStatus !== 'processing' && isActivated(u, ctx.brand.paymentFirst)) return null;
  const to = ctx.lastPathname === '/thank-you' ? '/thank-you' : '/plans';
  return redirect(to, { message: activationMessage(ctx) });
}

function first(...checks: Array<(ctx: GuardContext) => GuardResult | null>) {
  return (ctx: GuardContext): GuardResult => {
    for (const check of checks) {
      const r = check(ctx);
      if (r) return r;
    }
    return allow;
  };
}

/** The host after "=" in an address containing payssionv2, e.g. `?payssionv2=pay.example.com`. */
export function payssionHost(href: string): string | null {
  const m = /payssionv2[^=]*=([^&#/?\s]+)/i.exec(href);
  if (!m?.[1]) return null;
  try {
    const host = decodeURIComponent(m[1]).toLowerCase();
    return /^[a-z0-9.-]+(:\d+)?$/.test(host) ? host : null;
  } catch {
    return null;
  }
}

const rules: Record<GuardKind, (ctx: GuardContext) => GuardResult> = {
  guest(ctx) {
    if (!ctx.user) return allow;
    const { pathname, searchParams } = ctx.url;
    // An email-verification link opened while logged in is handled by /plans.
    const userId = searchParams.get('userId');
    const token = searchParams.get('token');
    if (pathname === '/sign-in' && userId && token) {
      return redirect(`/plans?${new URLSearchParams({ userId, token })}`);
    }
    // A one-time login link signs in whoever it belongs to.
    if (pathname === '/auth' && searchParams.get('userID') && searchParams.get('token')) return allow;
    return redirect('/dashboard');
  },
  protected: first(requireLogin, requireNotTestAccount, requireActivation),
  plans(ctx) {
    const login = requireLogin(ctx);
    if (login) return login;
    const status = ctx.url.searchParams.get('redirect_status');
    if (status === 'failed') {
      return redirect('/plans', {
        effects: ['resetPaymentStatus', 'clearSubscriptionHash'],
        message: { key: 'payment.failedNotice', ms: SNACKBAR_MS.paymentProcessing },
      });
    }
    if (status !== null) return redirect('/plans');
    return allow;
  },
  thankYou(ctx) {
    const login = requireLogin(ctx);
    if (login) return login;
    if (ctx.tariffName && ctx.url.searchParams.get('redirect_status') !== 'failed') return allow;
    const back = ctx.lastPathname && ctx.lastPathname !== '/thank-you' ? ctx.lastPathname : '/dashboard';
    return redirect(back);
  },
  failedPayment: first(requireLogin),
  paymentEvent(ctx) {
    const login = requireLogin(ctx);
    if (login) return login;
    if (!ctx.url.href.toLowerCase().includes('payssionv2')) return allow;
    const host = payssionHost(ctx.url.href);
    if (host && host !== ctx.url.host.toLowerCase() && ctx.allowedHosts.map((h) => h.toLowerCase()).includes(host)) {
      return { kind: 'external', url: `https://${host}/thank-you`, newTab: false };
    }
    return allow;
  },
  affiliate(ctx) {
    const r = first(requireLogin, requireActivation)(ctx);
    if (r.kind !== 'allow') return r;
    if (ctx.user?.isPostAffiliateAvailable && ctx.brand.affiliatePortalUrl) {
      return { kind: 'external', url: ctx.brand.affiliatePortalUrl, newTab: true, then: '/dashboard' };
    }
    return allow;
  },
  profile: first(requireLogin, requireActivation),
  setNewPass(ctx) {
    const login = requireLogin(ctx);
    if (login) return login;
    return ctx.user?.isWgSectionAvailable ? allow : redirect('/dashboard');
  },
  login: first(requireLogin),
};

export function evaluateGuard(kind: GuardKind, ctx: GuardContext): GuardResult {
  return rules[kind](ctx);
}
