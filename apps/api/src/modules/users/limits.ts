import type { Config } from '../../config.js';
import { TooManyRequestsError } from '../../lib/errors.js';
import { type LimitRule, type RateLimiter, addressKey } from '../../lib/rate-limit.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Every budget of the account flows in one place. A try is counted before it is evaluated (see
 * lib/rate-limit.ts); a successful one gives its point back. Sign-in follows OWASP's
 * authentication cheat sheet: failures are budgeted per account AND address, so a stranger's
 * wrong passwords never lock the owner out from elsewhere; many addresses against one account
 * meet the captcha on every try or, without a captcha, a per-account slow-down.
 */
export const LIMITS = {
  /** Every sign-in try from one address (LIMIT_LOGIN_PER_IP overrides max). */
  loginPerIp: { name: 'login-ip', max: 60, windowMs: 15 * MINUTE, address: true },
  /** Failed sign-ins (password or second factor) for one account from one address. */
  loginPerAccountIp: { name: 'login-account-ip', max: 10, windowMs: 15 * MINUTE },
  /** Failed sign-ins for one account from anywhere; beyond it the account is slowed down. */
  loginPerAccount: { name: 'login-account', max: 20, windowMs: 15 * MINUTE },
  /** The slow-down: one evaluation per account per 5 seconds (only without a captcha provider). */
  loginSlowDown: { name: 'login-slow', max: 1, windowMs: 5_000 },
  /**
   * Failed sign-ins of one account from one browser it signed in from before (a known device): the only
   * sign-in budget such a browser spends, so strangers using up the others never keep the owner out.
   */
  loginPerAccountDevice: { name: 'login-account-device', max: 10, windowMs: 15 * MINUTE },
  /** Authenticator and recovery codes checked for one account (sign-in, 2FA on and off). */
  secondFactorPerUser: { name: 'second-factor', max: 10, windowMs: 15 * MINUTE },
  /** Codes tried to turn two-factor on (its own budget: a session cannot use up the sign-in codes' budget). */
  totpSetupPerUser: { name: 'totp-setup', max: 10, windowMs: 15 * MINUTE },
  /**
   * Password checks of a signed-in session: password change, turning 2FA off, deleting the account.
   * Per session (key user:token), so a stolen session that uses up its budget cannot keep the
   * owner's own session from changing the password.
   */
  reauthPerSession: { name: 'reauth', max: 10, windowMs: 15 * MINUTE },
  /** Emailed-link tokens tried from one address (verify, reset, one-time sign-in, set-new-pass); successes are refunded. */
  linkTriesPerIp: { name: 'link-ip', max: 30, windowMs: 15 * MINUTE, address: true },
  /** One-time sign-in links minted by one account. */
  onetimeMintPerUser: { name: 'onetime-mint', max: 5, windowMs: HOUR },
  registerPerIp: { name: 'register-ip', max: 20, windowMs: HOUR, address: true },
  resetPerIp: { name: 'reset-ip', max: 20, windowMs: HOUR, address: true },
  /** Reset and set-new-pass mails per account. */
  resetPerEmail: { name: 'reset-email', max: 5, windowMs: HOUR },
  resendPerUser: { name: 'resend', max: 5, windowMs: HOUR },
  /** "New browser" notices per account (security-mail.ts): scripted sign-ins without cookies are each a new browser. */
  newBrowserMailPerAccount: { name: 'new-browser-mail', max: 3, windowMs: HOUR },
} as const satisfies Record<string, LimitRule>;

/** The per-address budgets an operator can raise (the browser tests sign in hundreds of times from 127.0.0.1). */
export function perIpRules(perIpLimits: Config['perIpLimits']) {
  return {
    login: { ...LIMITS.loginPerIp, max: perIpLimits.login },
    register: { ...LIMITS.registerPerIp, max: perIpLimits.register },
    reset: { ...LIMITS.resetPerIp, max: perIpLimits.reset },
  };
}

export const sessionKey = (userId: number, tokenId: number) => `${userId}:${tokenId}`;

/** Counts one try and throws 429 (with Retry-After) when it is over the budget. */
export async function spend(limiter: RateLimiter, rule: LimitRule, key: string): Promise<void> {
  const v = await limiter.consume(rule, key);
  if (!v.allowed) throw new TooManyRequestsError(v.retryAfterS);
}

/**
 * Counts one sign-in try of an account, before anything is evaluated. One account has one budget
 * whichever door it is tried at (the customer sign-in and the operator console's): per address
 * (per /64 for IPv6), per account and address, per account, and beyond that the slow-down. A browser
 * the account signed in from before (`knownDevice`, a verified device id) spends only its own budget
 * instead, so the owner gets in while strangers' guesses slow everyone else down (GitHub, Proton).
 * `giveBack` is for a try that turned out right.
 */
export async function spendSignIn(
  limiter: RateLimiter,
  o: { email: string; ip: string; perIp: LimitRule; slowDown: boolean; knownDevice?: string },
): Promise<{ giveBack: () => Promise<void> }> {
  const email = o.email.toLowerCase();
  if (o.knownDevice) {
    const device = `${email}|${o.knownDevice}`;
    await spend(limiter, LIMITS.loginPerAccountDevice, device);
    return { giveBack: () => limiter.reset(LIMITS.loginPerAccountDevice, device) };
  }
  await spend(limiter, o.perIp, o.ip);
  const pair = `${email}|${addressKey(o.ip)}`;
  await spend(limiter, LIMITS.loginPerAccountIp, pair);
  const account = await limiter.consume(LIMITS.loginPerAccount, email);
  if (!account.allowed && o.slowDown) await spend(limiter, LIMITS.loginSlowDown, email);
  return {
    async giveBack() {
      await limiter.reset(LIMITS.loginPerAccountIp, pair);
      await limiter.refund(LIMITS.loginPerAccount, email);
    },
  };
}
