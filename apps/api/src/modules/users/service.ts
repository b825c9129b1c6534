import type { AuthResult, LoginBody, RegisterBody, User, VerifyUserBody } from '@warren/contract';
import { LANGUAGES } from '@warren/contract';
import type { Brand } from '../../brands/registry.js';
import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import { TooManyRequestsError, UnauthorizedError, ValidationError } from '../../lib/errors.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import type { RateLimiter } from '../../lib/rate-limit.js';
import { hashToken, randomToken } from '../../lib/secrets.js';
import type { Mailer } from '../../mail/mailer.js';
import { renderMail } from '../../mail/templates.js';
import { type TokenRow, type UserRow, usersRepository } from './repository.js';

export interface RequestContext {
  brand: Brand;
  ip: string;
  userAgent: string;
  /** Origin for links in emails: always a host of the brand registry, never an arbitrary Host header. */
  origin: string;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
export const LIMITS = {
  failedLoginsPerEmail: { max: 10, windowMs: 15 * MINUTE },
  loginPerIp: { max: 60, windowMs: 15 * MINUTE },
  registerPerIp: { max: 20, windowMs: HOUR },
  resetPerIp: { max: 20, windowMs: HOUR },
  resetPerEmail: { max: 5, windowMs: HOUR },
  resendPerUser: { max: 5, windowMs: HOUR },
} as const;
const VERIFY_TTL_MS = 48 * HOUR;
const RESET_TTL_MS = HOUR;
const ONETIME_TTL_MS = 15 * MINUTE;

const BAD_CREDENTIALS = 'These credentials do not match our records.';

type Language = (typeof LANGUAGES)[number];
const asLanguage = (l: string | undefined): Language => (LANGUAGES as readonly string[]).includes(l ?? '') ? (l as Language) : 'en';
const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** The account as the web app sees it; a brand can switch the WireGuard section off for everyone on it. */
export function toUserDto(row: UserRow, brand?: { wgSection?: boolean }): User {
  return {
    id: row.id,
    email: row.email,
    verified: row.verified ? 1 : 0,
    accountStatus: row.account_status === 'Active' || row.account_status === 'Suspended' ? row.account_status : 'Inactive',
    firstName: row.first_name,
    secondName: row.second_name,
    language: asLanguage(row.language),
    isPostAffiliateAvailable: row.is_post_affiliate_available,
    isWgSectionAvailable: row.is_wg_section_available && brand?.wgSection !== false,
    twoFactorEnabled: row.totp_enabled,
    subscriptionData: { tariffName: row.tariff_name, tariffKey: row.tariff_key, expiresAt: iso(row.subscription_expires_at) },
  };
}

/** Attribution fields kept from the sign-up payload; everything else in the body is ignored. */
const ATTRIBUTION_FIELDS = [
  'cid', 'cid4', 'clickID', 'vcommID', 'myLeadID', 'voluumID', 'utmSource', 'utmMedium', 'utmCampaign', 'referrer',
  'papReferralID', 'referralID', 'friendID', 'promocode',
] as const;

export interface UsersServiceDeps {
  db: Database;
  config: Config;
  mailer: Mailer;
  limiter: RateLimiter;
  /** Background work (emails) the request does not wait for; tracked so shutdown can drain it. */
  defer: (task: () => Promise<unknown>) => void;
}

export function usersService({ db, config, mailer, limiter, defer }: UsersServiceDeps) {
  const repo = usersRepository(db);

  async function limit(key: string, rule: { max: number; windowMs: number }): Promise<void> {
    const { count, resetInS } = await limiter.hit(key, rule.windowMs);
    if (count > rule.max) throw new TooManyRequestsError(resetInS);
  }

  /** A recovery code stands in for the authenticator once. */
  async function useRecoveryCode(userId: number, code: string): Promise<boolean> {
    const normalised = code.toLowerCase().replace(/[^a-z0-9]/g, '');
    if (normalised.length < 8) return false;
    const rows = await db.query(
      `update recovery_codes set used_at = now() where id = (select id from recovery_codes where user_id = $1 and code_hash = $2 and used_at is null limit 1) returning id`,
      [userId, hashToken(normalised)],
    );
    return rows.length === 1;
  }

  async function issueToken(userId: number, userAgent: string): Promise<string> {
    const token = randomToken();
    await repo.insertToken(userId, hashToken(token), new Date(Date.now() + config.tokens.ttlMs), userAgent);
    return token;
  }

  function sendMail(to: string, kind: Parameters<typeof renderMail>[0], language: string, ctx: RequestContext, link?: string) {
    const rendered = renderMail(kind, { language: asLanguage(language), productName: ctx.brand.productName, link });
    defer(() => mailer.send({ to, ...rendered }));
  }

  async function sendVerification(user: UserRow, ctx: RequestContext): Promise<void> {
    const token = randomToken(24);
    await repo.invalidateEmailTokens(user.id, 'verify');
    await repo.insertEmailToken(user.id, 'verify', hashToken(token), new Date(Date.now() + VERIFY_TTL_MS));
    sendMail(user.email, 'verify', user.language, ctx, `${ctx.origin}/sign-in?userId=${user.id}&token=${encodeURIComponent(token)}`);
  }

  return {
    async register(body: RegisterBody, ctx: RequestContext): Promise<AuthResult> {
      await limit(`register:ip:${ctx.ip}`, { ...LIMITS.registerPerIp, max: config.perIpLimits.register });
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
      await sendVerification(row, ctx);
      return { user: toUserDto(row, ctx.brand), token: await issueToken(row.id, ctx.userAgent) };
    },

    async login(body: LoginBody, ctx: RequestContext): Promise<AuthResult> {
      await limit(`login:ip:${ctx.ip}`, { ...LIMITS.loginPerIp, max: config.perIpLimits.login });
      const failKey = `login:fail:${body.email}`;
      const failures = await limiter.peek(failKey);
      if (failures.count >= LIMITS.failedLoginsPerEmail.max) throw new TooManyRequestsError(failures.resetInS);
      const row = await repo.findByEmail(body.email);
      const ok = await verifyPassword(row?.password_hash, body.password);
      if (!row || !ok) {
        await limiter.hit(failKey, LIMITS.failedLoginsPerEmail.windowMs);
        throw new ValidationError({ email: [BAD_CREDENTIALS] });
      }
      if (row.totp_enabled) {
        const { verifyTotp } = await import('../../lib/totp.js');
        if (!body.otp) throw new ValidationError({ otp: ['Enter the code from your authenticator app.'] });
        const totpOk = !!row.totp_secret && verifyTotp(config.appSecret, row.totp_secret, body.otp);
        if (!totpOk && !(await useRecoveryCode(row.id, body.otp))) {
          await limiter.hit(failKey, LIMITS.failedLoginsPerEmail.windowMs);
          throw new ValidationError({ otp: ['The code is not valid. Try the current one.'] });
        }
      }
      await limiter.reset(failKey);
      const attribution: Record<string, unknown> = {};
      for (const f of ['cid', 'cid4', 'voluumID', 'gaCid'] as const) if (body[f]) attribution[f] = body[f];
      if (Object.keys(attribution).length) await repo.mergeAttribution(row.id, attribution);
      return { user: toUserDto(row, ctx.brand), token: await issueToken(row.id, ctx.userAgent) };
    },

    /** Same answer and the same work up front whether or not the email exists. */
    async requestPasswordReset(email: string, ctx: RequestContext): Promise<void> {
      await limit(`reset:ip:${ctx.ip}`, { ...LIMITS.resetPerIp, max: config.perIpLimits.reset });
      const perEmail = await limiter.hit(`reset:email:${email}`, LIMITS.resetPerEmail.windowMs);
      if (perEmail.count > LIMITS.resetPerEmail.max) return; // silently: the answer must not differ
      const row = await repo.findByEmail(email);
      const token = randomToken(24);
      defer(async () => {
        if (!row) return;
        await repo.insertEmailToken(row.id, 'reset', hashToken(token), new Date(Date.now() + RESET_TTL_MS));
        sendMail(row.email, 'reset', row.language, ctx, `${ctx.origin}/reset-password?userId=${row.id}&token=${encodeURIComponent(token)}`);
      });
    },

    async resetPassword(body: { userId: number; token: string; password: string }, ctx: RequestContext): Promise<void> {
      const used = await repo.consumeEmailToken(body.userId, 'reset', hashToken(body.token));
      if (!used) throw new ValidationError({ token: ['This password reset link is invalid or has expired.'] });
      const row = await repo.findById(body.userId);
      if (!row) throw new ValidationError({ token: ['This password reset link is invalid or has expired.'] });
      await repo.setPasswordHash(row.id, await hashPassword(body.password));
      await repo.deleteTokensOf(row.id);
      await repo.invalidateEmailTokens(row.id, 'reset');
      await limiter.reset(`login:fail:${row.email.toLowerCase()}`);
      sendMail(row.email, 'passwordChanged', row.language, ctx);
    },

    async verifyEmail(body: VerifyUserBody, ctx: RequestContext): Promise<User> {
      const used = await repo.consumeEmailToken(body.userId, 'verify', hashToken(body.token));
      if (!used) throw new ValidationError({ token: ['This verification link is invalid or has expired.'] });
      // On payment-first brands the account becomes Active with the first payment, not with the email.
      await repo.markVerified(body.userId, !ctx.brand.paymentFirst);
      const attribution: Record<string, unknown> = {};
      for (const f of ['cid', 'clickID', 'cid4'] as const) if (body[f]) attribution[`verify_${f}`] = body[f];
      if (Object.keys(attribution).length) await repo.mergeAttribution(body.userId, attribution);
      const row = await repo.findById(body.userId);
      if (!row) throw new ValidationError({ token: ['This verification link is invalid or has expired.'] });
      return toUserDto(row, ctx.brand);
    },

    async resendVerification(user: UserRow, ctx: RequestContext): Promise<void> {
      if (user.verified) return;
      await limit(`resend:user:${user.id}`, LIMITS.resendPerUser);
      await sendVerification(user, ctx);
    },

    /** Resolves a bearer token; rotates it when old enough (the caller sends the new one back). */
    async authenticate(token: string): Promise<{ user: UserRow; tokenRow: TokenRow; rotatedTo?: string } | undefined> {
      if (token.length < 20 || token.length > 200) return undefined;
      const session = await repo.findSession(hashToken(token));
      if (!session) return undefined;
      const { token: t, user } = session;
      const now = Date.now();
      if (t.rotated_at === null && now - new Date(t.created_at).getTime() > config.tokens.rotateAfterMs) {
        if (await repo.retireToken(t.id, new Date(now + config.tokens.graceMs))) {
          const rotatedTo = await issueToken(user.id, '');
          return { user, tokenRow: t, rotatedTo };
        }
      } else if (t.rotated_at === null && now - new Date(t.last_used_at).getTime() > 5 * MINUTE) {
        // Sliding expiry, written at most every few minutes so the hot path stays one read.
        await repo.touchToken(t.id, new Date(now + config.tokens.ttlMs));
      }
      return { user, tokenRow: t };
    },

    async logout(tokenId: number): Promise<void> {
      await repo.deleteToken(tokenId);
    },

    async onetimeLink(user: UserRow, promocode: string | undefined, ctx: RequestContext): Promise<{ url: string; expiresAt: string }> {
      const token = randomToken(24);
      const expiresAt = new Date(Date.now() + ONETIME_TTL_MS);
      await repo.insertEmailToken(user.id, 'onetime', hashToken(token), expiresAt, promocode ? { promocode } : {});
      const promo = promocode ? `&promocode=${encodeURIComponent(promocode)}` : '';
      return { url: `${ctx.origin}/auth?userID=${user.id}&token=${encodeURIComponent(token)}${promo}`, expiresAt: expiresAt.toISOString() };
    },

    async onetimeLogin(userId: number, token: string, ctx: RequestContext): Promise<AuthResult> {
      const used = await repo.consumeEmailToken(userId, 'onetime', hashToken(token));
      const row = used && (await repo.findById(userId));
      if (!row) throw new ValidationError({ token: ['This sign-in link is invalid or has expired.'] });
      return { user: toUserDto(row, ctx.brand), token: await issueToken(row.id, ctx.userAgent) };
    },

    async setSession(user: UserRow, sessionID: string, voluumID: string | undefined): Promise<void> {
      await repo.mergeAttribution(user.id, voluumID ? { sessionID, voluumID } : { sessionID });
    },

    async annihilate(user: UserRow, password: string, ctx: RequestContext): Promise<void> {
      await limit(`annihilate:user:${user.id}`, LIMITS.failedLoginsPerEmail);
      if (!(await verifyPassword(user.password_hash, password))) throw new ValidationError({ password: ['The password is incorrect.'] });
      const { email, language } = user;
      await db.transaction(async (tx) => usersRepository(tx).erase(user.id));
      sendMail(email, 'accountDeleted', language, ctx);
    },

    async reload(userId: number): Promise<UserRow> {
      const row = await repo.findById(userId);
      if (!row) throw new UnauthorizedError();
      return row;
    },
  };
}
export type UsersService = ReturnType<typeof usersService>;
