import type {
  AuthResult,
  AuthenticationResponse,
  LoginBody,
  RegisterBody,
  User,
  VerifyUserBody,
} from '@warren/contract';
import { LANGUAGES } from '@warren/contract';
import type { RequestContext } from '../../plugins/context.js';
import type { Config } from '../../config.js';
import type { Keyring } from '../../lib/keyring.js';
import type { Database } from '../../db/client.js';
import { ConflictError, ForbiddenError, UnauthorizedError, ValidationError } from '../../lib/errors.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import type { RateLimiter } from '../../lib/rate-limit.js';
import type { Metrics } from '../../lib/metrics.js';
import { hashToken, randomToken } from '../../lib/secrets.js';
import type { Mailer } from '../../mail/mailer.js';
import { renderMail } from '../../mail/templates.js';
import { LIMITS, perIpRules, sessionKey, spend, spendSignIn } from './limits.js';
import type { AccountErasure } from './erasure.js';
import { type TokenRow, type UserRow, usersRepository } from './repository.js';
import { secondFactor } from './second-factor.js';
import type { SecurityMails, SignInMethod } from './security-mail.js';

/** Who asks, from where (plugins/context.ts builds it). */
export type { RequestContext };

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const VERIFY_TTL_MS = 48 * HOUR;
const RESET_TTL_MS = HOUR;
const ONETIME_TTL_MS = 15 * MINUTE;

const BAD_CREDENTIALS = 'These credentials do not match our records.';
const ACCOUNT_DISABLED = 'This account is disabled. Please contact support.';

type Language = (typeof LANGUAGES)[number];
const asLanguage = (l: string | undefined): Language =>
  (LANGUAGES as readonly string[]).includes(l ?? '') ? (l as Language) : 'en';
const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** The account as the web app sees it; a brand can switch the WireGuard section off for everyone on it. */
export function toUserDto(row: UserRow, brand?: { wgSection?: boolean }): User {
  return {
    id: row.id,
    email: row.email,
    verified: row.verified ? 1 : 0,
    accountStatus:
      row.account_status === 'Active' || row.account_status === 'Suspended' ? row.account_status : 'Inactive',
    firstName: row.first_name,
    secondName: row.second_name,
    language: asLanguage(row.language),
    isPostAffiliateAvailable: row.is_post_affiliate_available,
    isWgSectionAvailable: row.is_wg_section_available && brand?.wgSection !== false,
    twoFactorEnabled: row.totp_enabled,
    subscriptionData: {
      tariffName: row.tariff_name,
      tariffKey: row.tariff_key,
      expiresAt: iso(row.subscription_expires_at),
    },
  };
}

/** Attribution fields kept from the sign-up payload; everything else in the body is ignored. */
const ATTRIBUTION_FIELDS = [
  'cid',
  'cid4',
  'clickID',
  'vcommID',
  'myLeadID',
  'voluumID',
  'utmSource',
  'utmMedium',
  'utmCampaign',
  'referrer',
  'papReferralID',
  'referralID',
  'friendID',
  'promocode',
] as const;

export interface UsersServiceDeps {
  db: Database;
  /** APP_SECRET and the replaced ones (lib/keyring.ts): the two-factor secrets. */
  keys: Keyring;
  /** The bearer tokens' lifetime, rotation and grace (TOKEN_TTL_DAYS, TOKEN_ROTATE_AFTER_MINUTES, TOKEN_GRACE_SECONDS). */
  tokens: Config['tokens'];
  /** The per-address budgets an operator can raise (LIMIT_*_PER_IP). */
  perIpLimits: Config['perIpLimits'];
  /** Whether a captcha guards sign-in (else a per-account slow-down does). */
  captchaProvider: Config['captcha']['provider'];
  mailer: Mailer;
  limiter: RateLimiter;
  /** Background work (emails) the request does not wait for; tracked so shutdown can drain it. */
  defer: (task: () => Promise<unknown>) => void;
  /** Sign-up and verification counters (lib/metrics.ts). */
  metrics?: Pick<Metrics, 'signups' | 'verified'>;
  /** Security notices (new browser, recovery code used). */
  security: SecurityMails;
  /** Deletes an account with every area's personal data (erasure.ts, built by the composition root). */
  erasure: AccountErasure;
  /**
   * A passkey of the account as the second step after the password (modules/passkeys, issue 23):
   * true when the assertion is the account's and verifies; throws a field error otherwise.
   */
  passkeyFactor?: (userId: number, response: AuthenticationResponse, ctx: RequestContext) => Promise<boolean>;
}

export function usersService({
  db,
  keys,
  tokens,
  perIpLimits,
  captchaProvider,
  mailer,
  limiter,
  defer,
  metrics,
  security,
  erasure,
  passkeyFactor,
}: UsersServiceDeps) {
  const repo = usersRepository(db);
  const factor = secondFactor(repo, keys);
  const perIp = perIpRules(perIpLimits);

  async function issueToken(userId: number, userAgent: string): Promise<string> {
    const token = randomToken();
    await repo.insertToken(userId, hashToken(token), new Date(Date.now() + tokens.ttlMs), userAgent);
    return token;
  }

  function sendMail(
    to: string,
    kind: Parameters<typeof renderMail>[0],
    language: string,
    ctx: RequestContext,
    link?: string,
  ) {
    const rendered = renderMail(kind, { language: asLanguage(language), productName: ctx.brand.productName, link });
    defer(() => mailer.send({ to, ...rendered }));
  }

  async function sendVerification(user: UserRow, ctx: RequestContext): Promise<void> {
    const token = randomToken(24);
    await repo.invalidateEmailTokens(user.id, 'verify');
    await repo.insertEmailToken(user.id, 'verify', hashToken(token), new Date(Date.now() + VERIFY_TTL_MS));
    sendMail(
      user.email,
      'verify',
      user.language,
      ctx,
      `${ctx.origin}/sign-in?userId=${user.id}&token=${encodeURIComponent(token)}`,
    );
  }

  /**
   * Runs `use` for an emailed-link token under the per-address budget: the try is counted first,
   * and given back when the link was real, so only guessing uses the budget up.
   */
  async function withLinkBudget<T>(ip: string, use: () => Promise<{ genuine: boolean; result: T }>): Promise<T> {
    await spend(limiter, LIMITS.linkTriesPerIp, ip);
    const { genuine, result } = await use();
    if (genuine) await limiter.refund(LIMITS.linkTriesPerIp, ip);
    return result;
  }

  const invalidLink = (field: string, message: string) => new ValidationError({ [field]: [message] });

  return {
    async register(body: RegisterBody, ctx: RequestContext): Promise<AuthResult> {
      await spend(limiter, perIp.register, ctx.ip);
      const passwordHash = await hashPassword(body.password);
      const attribution: Record<string, unknown> = {};
      for (const f of ATTRIBUTION_FIELDS) if (body[f]) attribution[f] = body[f];
      if (body.isOneStepPayment) attribution.isOneStepPayment = true;
      if (body.isRestrictedDomain) attribution.isRestrictedDomain = true;
      const row = await repo.insert({
        email: body.email,
        passwordHash,
        firstName: body.name ?? '',
        language: asLanguage(body.language ?? body.langCode),
        brand: ctx.brand.id,
        attribution,
        marketingEmails: !body.disableEmail,
      });
      if (!row) throw new ValidationError({ email: ['The email has already been taken.'] });
      metrics?.signups.inc({ brand: ctx.brand.id });
      await sendVerification(row, ctx);
      // The browser that made the account is its own: its next sign-in is not "new".
      security.rememberBrowser(row.id, ctx);
      return { user: toUserDto(row, ctx.brand), token: await issueToken(row.id, ctx.userAgent) };
    },

    /**
     * Every try is counted before the password is looked at (per address, per account and
     * address, per account), so parallel tries cannot outrun a budget. A success gives the
     * account's points back. Wrong passwords from one address block that address for this
     * account only; many addresses against one account meet the captcha on every try (when a
     * provider is configured) or a per-account slow-down, never a lockout of the owner.
     */
    async login(body: LoginBody, ctx: RequestContext): Promise<AuthResult> {
      const email = body.email.toLowerCase();
      // The account's one budget, shared with the operator console's sign-in.
      const { giveBack } = await spendSignIn(limiter, {
        email,
        ip: ctx.ip,
        perIp: perIp.login,
        slowDown: captchaProvider === 'none',
      });

      const row = await repo.findByEmail(email);
      const ok = await verifyPassword(row?.password_hash, body.password);
      if (!row || !ok) throw new ValidationError({ email: [BAD_CREDENTIALS] });
      // Disabled by staff (the operator console): told after the right password only, so it reveals nothing to a guesser.
      if (row.account_status === 'Suspended') throw new ForbiddenError(ACCOUNT_DISABLED);
      let how: SignInMethod = 'password';
      if (row.totp_enabled) {
        if (!body.otp && !(body.passkey && passkeyFactor)) {
          // The right password and no code yet: the web app asks for the code next; no try is used up.
          await giveBack();
          throw new ValidationError({ otp: ['Enter the code from your authenticator app.'] });
        }
        await spend(limiter, LIMITS.secondFactorPerUser, String(row.id));
        // A passkey of this account is accepted as the second step too (issue 23); it answers its own field errors.
        const used =
          body.passkey && passkeyFactor
            ? (await passkeyFactor(row.id, body.passkey, ctx)) && ('passkey' as const)
            : await factor.check(row, body.otp ?? '');
        if (!used) throw new ValidationError({ otp: ['The code is not valid. Try the current one.'] });
        how = used;
        await limiter.reset(LIMITS.secondFactorPerUser, String(row.id));
      }
      await giveBack();
      const attribution: Record<string, unknown> = {};
      for (const f of ['cid', 'cid4', 'voluumID', 'gaCid'] as const) if (body[f]) attribution[f] = body[f];
      if (Object.keys(attribution).length) await repo.mergeAttribution(row.id, attribution);
      const token = await issueToken(row.id, ctx.userAgent);
      security.signedIn(row, ctx, how);
      return { user: toUserDto(row, ctx.brand), token };
    },

    /** Same answer and the same work up front whether or not the email exists. */
    async requestPasswordReset(email: string, ctx: RequestContext): Promise<void> {
      await spend(limiter, perIp.reset, ctx.ip);
      const perEmail = await limiter.consume(LIMITS.resetPerEmail, email.toLowerCase());
      if (!perEmail.allowed) return; // silently: the answer must not differ
      const row = await repo.findByEmail(email);
      const token = randomToken(24);
      defer(async () => {
        if (!row) return;
        await repo.insertEmailToken(row.id, 'reset', hashToken(token), new Date(Date.now() + RESET_TTL_MS));
        sendMail(
          row.email,
          'reset',
          row.language,
          ctx,
          `${ctx.origin}/reset-password?userId=${row.id}&token=${encodeURIComponent(token)}`,
        );
      });
    },

    /** set-new-pass for a signed-in user: the mailed link proves the mailbox, which a stolen session does not. */
    async sendSetPasswordLink(user: UserRow, ctx: RequestContext): Promise<void> {
      await spend(limiter, LIMITS.resetPerEmail, user.email.toLowerCase());
      const token = randomToken(24);
      await repo.insertEmailToken(user.id, 'reset', hashToken(token), new Date(Date.now() + RESET_TTL_MS));
      sendMail(
        user.email,
        'reset',
        user.language,
        ctx,
        `${ctx.origin}/set-new-pass?token=${encodeURIComponent(token)}`,
      );
    },

    async resetPassword(body: { userId: number; token: string; password: string }, ctx: RequestContext): Promise<void> {
      const row = await withLinkBudget(ctx.ip, async () => {
        const used = await repo.consumeEmailToken(body.userId, 'reset', hashToken(body.token));
        return { genuine: !!used, result: used && (await repo.findById(body.userId)) };
      });
      if (!row) throw invalidLink('token', 'This password reset link is invalid or has expired.');
      await repo.setPasswordHash(row.id, await hashPassword(body.password));
      await repo.deleteTokensOf(row.id);
      await repo.invalidateCredentialTokens(row.id);
      // The owner proved the mailbox: the account-wide sign-in budget starts afresh (other addresses' budgets stay).
      await limiter.reset(LIMITS.loginPerAccount, row.email.toLowerCase());
      sendMail(row.email, 'passwordChanged', row.language, ctx);
    },

    async verifyEmail(body: VerifyUserBody, ctx: RequestContext): Promise<User> {
      const tokenHash = hashToken(body.token);
      const outcome = await withLinkBudget(ctx.ip, async () => {
        // On payment-first brands the account becomes Active with the first payment, not with the email.
        if (await repo.consumeVerifyToken(body.userId, tokenHash, !ctx.brand.paymentFirst)) {
          metrics?.verified.inc({ brand: ctx.brand.id });
          return { genuine: true, result: 'verified' as const };
        }
        // A link opened again: say so, but only to someone holding that very link.
        const issued = await repo.emailTokenIssued(body.userId, 'verify', tokenHash);
        const already = issued && (await repo.findById(body.userId))?.verified === true;
        return { genuine: issued, result: already ? ('already' as const) : ('invalid' as const) };
      });
      if (outcome === 'already')
        throw new ConflictError('Your account is already verified. Please sign in.', {
          token: ['This account is already verified.'],
        });
      if (outcome === 'invalid') throw invalidLink('token', 'This verification link is invalid or has expired.');
      // clickID is the click that converted: the first one stays. The analytics ids are the latest.
      if (body.clickID) await repo.fillAttribution(body.userId, { clickID: body.clickID });
      const analytics: Record<string, unknown> = {};
      for (const f of ['cid', 'cid4'] as const) if (body[f]) analytics[f] = body[f];
      if (Object.keys(analytics).length) await repo.mergeAttribution(body.userId, analytics);
      const row = await repo.findById(body.userId);
      if (!row) throw invalidLink('token', 'This verification link is invalid or has expired.');
      // The browser that opened the link proved the mailbox: signing in there is not "new".
      security.rememberBrowser(row.id, ctx);
      return toUserDto(row, ctx.brand);
    },

    async resendVerification(user: UserRow, ctx: RequestContext): Promise<void> {
      if (user.verified) return;
      await spend(limiter, LIMITS.resendPerUser, String(user.id));
      await sendVerification(user, ctx);
    },

    /**
     * "Resend email" on the sign-in page, signed out: an expired or superseded verification link
     * of the user stands for the mailbox. The answer is the same whatever happened.
     */
    async resendVerificationByLink(body: { userId: number; token: string }, ctx: RequestContext): Promise<void> {
      const user = await withLinkBudget(ctx.ip, async () => {
        const issued = await repo.emailTokenIssued(body.userId, 'verify', hashToken(body.token));
        return { genuine: issued, result: issued ? await repo.findById(body.userId) : undefined };
      });
      if (!user || user.verified) return;
      const v = await limiter.consume(LIMITS.resendPerUser, String(user.id));
      if (v.allowed) await sendVerification(user, ctx);
    },

    /** Resolves a bearer token; rotates it when old enough (the caller sends the new one back). */
    async authenticate(token: string): Promise<{ user: UserRow; tokenRow: TokenRow; rotatedTo?: string } | undefined> {
      if (token.length < 20 || token.length > 200) return undefined;
      const session = await repo.findSession(hashToken(token));
      if (!session) return undefined;
      const { token: t, user } = session;
      const now = Date.now();
      if (t.rotated_at === null && now - new Date(t.created_at).getTime() > tokens.rotateAfterMs) {
        if (await repo.retireToken(t.id, new Date(now + tokens.graceMs))) {
          // The fresh token is the same session: it keeps the device's user agent for the sessions list.
          const rotatedTo = await issueToken(user.id, t.user_agent);
          return { user, tokenRow: t, rotatedTo };
        }
      } else if (t.rotated_at === null && now - new Date(t.last_used_at).getTime() > 5 * MINUTE) {
        // Sliding expiry, written at most every few minutes so the hot path stays one read.
        await repo.touchToken(t.id, new Date(now + tokens.ttlMs));
      }
      return { user, tokenRow: t };
    },

    async logout(tokenId: number): Promise<void> {
      await repo.deleteToken(tokenId);
    },

    /** A 15-minute sign-in link; minting is budgeted and a new link ends the earlier ones. */
    async onetimeLink(
      user: UserRow,
      promocode: string | undefined,
      ctx: RequestContext,
    ): Promise<{ url: string; expiresAt: string }> {
      await spend(limiter, LIMITS.onetimeMintPerUser, String(user.id));
      const token = randomToken(24);
      const expiresAt = new Date(Date.now() + ONETIME_TTL_MS);
      await db.transaction((tx) =>
        usersRepository(tx).replaceOnetimeToken(user.id, hashToken(token), expiresAt, promocode ? { promocode } : {}),
      );
      const promo = promocode ? `&promocode=${encodeURIComponent(promocode)}` : '';
      return {
        url: `${ctx.origin}/auth?userID=${user.id}&token=${encodeURIComponent(token)}${promo}`,
        expiresAt: expiresAt.toISOString(),
      };
    },

    /**
     * A passkey sign-in (modules/passkeys verified the assertion): a passkey is multi-factor by itself
     * (something held, unlocked by biometrics or a PIN), so it satisfies two-factor sign-in.
     */
    async signInWithPasskey(userId: number, ctx: RequestContext): Promise<AuthResult> {
      const row = await repo.findById(userId);
      if (!row) throw new ValidationError({ response: ['This passkey is not registered for this account.'] });
      if (row.account_status === 'Suspended') throw new ForbiddenError(ACCOUNT_DISABLED);
      const token = await issueToken(row.id, ctx.userAgent);
      security.signedIn(row, ctx, 'passkey');
      return { user: toUserDto(row, ctx.brand), token };
    },

    async onetimeLogin(userId: number, token: string, ctx: RequestContext): Promise<AuthResult> {
      const row = await withLinkBudget(ctx.ip, async () => {
        const used = await repo.consumeEmailToken(userId, 'onetime', hashToken(token));
        return { genuine: !!used, result: used && (await repo.findById(userId)) };
      });
      if (!row) throw invalidLink('token', 'This sign-in link is invalid or has expired.');
      if (row.account_status === 'Suspended') throw new ForbiddenError(ACCOUNT_DISABLED);
      const issued = await issueToken(row.id, ctx.userAgent);
      security.signedIn(row, ctx, 'link');
      return { user: toUserDto(row, ctx.brand), token: issued };
    },

    async setSession(user: UserRow, sessionID: string, voluumID: string | undefined): Promise<void> {
      await repo.mergeAttribution(user.id, voluumID ? { sessionID, voluumID } : { sessionID });
    },

    async annihilate(user: UserRow, tokenId: number, password: string, ctx: RequestContext): Promise<void> {
      await spend(limiter, LIMITS.reauthPerSession, sessionKey(user.id, tokenId));
      if (!(await verifyPassword(user.password_hash, password)))
        throw new ValidationError({ password: ['The password is incorrect.'] });
      const { email, language } = user;
      // Every session and emailed link ends with the personal data; a parallel deletion of the same
      // account (a second tab, staff) erased it first: this request's session is gone with it.
      if (!(await erasure.erase(user.id))) throw new UnauthorizedError();
      // The last mail to the address, sent after the outbox forgot the earlier ones.
      sendMail(email, 'accountDeleted', language, ctx);
    },

    async reload(userId: number): Promise<UserRow> {
      const row = await repo.findById(userId);
      if (!row) throw new UnauthorizedError();
      return row;
    },

    // --- the operator console's account actions (modules/staff/customers.ts) ---------------

    /** Every customer session of the account ends (the console's "sign out everywhere"); answers how many. */
    signOutEverywhere: (userId: number): Promise<number> => repo.deleteTokensOf(userId),
    /** Suspended (disable) or back to what the account had earned (enable); answers whether it changed. */
    setDisabled: (userId: number, disabled: boolean): Promise<boolean> => repo.setDisabled(userId, disabled),
    /** The affiliate-portal flag (the spec's portal rule): the value it had, null when no such account. */
    setAffiliatePortal: (userId: number, on: boolean): Promise<boolean | null> => repo.setAffiliatePortal(userId, on),
  };
}
export type UsersService = ReturnType<typeof usersService>;
