import type { Profile } from '@warren/contract';
import type { Database } from '../../db/client.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import type { RateLimiter } from '../../lib/rate-limit.js';
import { hashToken, hmac, randomToken, safeEqual } from '../../lib/secrets.js';
import type { Keyring } from '../../lib/keyring.js';
import { newTotpSecret, otpauthUrl, sealSecret } from '../../lib/totp.js';
import type { Mailer } from '../../mail/mailer.js';
import { renderMail } from '../../mail/templates.js';
import { LIMITS, sessionKey, spend } from '../users/limits.js';
import type { TokenRow, UserRow } from '../users/repository.js';
import { usersRepository } from '../users/repository.js';
import { normaliseRecoveryCode, secondFactor } from '../users/second-factor.js';
import type { SecurityMails } from '../users/security-mail.js';
import type { RequestContext } from '../users/service.js';
import { profileRepository } from './repository.js';

export { normaliseRecoveryCode };

const RECOVERY_CODES = 10;
const BAD_CODE = 'The code is not valid. Check the time on your device and try the current code.';

export function profileService(deps: {
  db: Database;
  /** APP_SECRET and the replaced ones (lib/keyring.ts): two-factor secrets, unsubscribe links. */
  keys: Keyring;
  mailer: Mailer;
  limiter: RateLimiter;
  defer: (t: () => Promise<unknown>) => void;
  productName: (brandId: string) => string;
  /** The two-factor notices; the composition always passes it (tests that never touch two-factor may not). */
  security?: SecurityMails;
  /** Ends the account's operator-console sessions (the staff repository's, their one writer): sign-out-everywhere ends them too. */
  endStaffSessions?: (userId: number) => Promise<unknown>;
}) {
  const { db, keys, limiter } = deps;
  const users = usersRepository(db);
  const profiles = profileRepository(db);
  const factor = secondFactor(users, keys);

  // Signed with APP_SECRET; links mailed before a rotation keep working while the old secret is in APP_SECRET_PREVIOUS.
  const unsubscribeSignature = (userId: number, secret = keys.appSecrets()[0]!) =>
    hmac(`unsubscribe:${secret}`, String(userId));

  async function mailPasswordChanged(user: UserRow) {
    const m = renderMail('passwordChanged', {
      language: (['en', 'ru', 'zh'].includes(user.language) ? user.language : 'en') as 'en',
      productName: deps.productName(user.brand),
    });
    deps.defer(() => deps.mailer.send({ to: user.email, ...m }));
  }

  /** The signed-in user's password, under the per-user budget: counted before it is checked, given back when right. */
  async function checkPassword(user: UserRow, token: TokenRow, password: string, field: string): Promise<void> {
    const key = sessionKey(user.id, token.id);
    await spend(limiter, LIMITS.reauthPerSession, key);
    if (!(await verifyPassword(user.password_hash, password)))
      throw new ValidationError({
        [field]: [field === 'currentPassword' ? 'The current password is incorrect.' : 'The password is incorrect.'],
      });
    await limiter.reset(LIMITS.reauthPerSession, key);
  }

  /** A new password: every other session and every emailed link that could sign in or set a password end with it. */
  async function replacePassword(user: UserRow, keepToken: TokenRow, next: string): Promise<void> {
    await users.setPasswordHash(user.id, await hashPassword(next));
    await users.deleteTokensOf(user.id, keepToken.id);
    await users.invalidateCredentialTokens(user.id);
    await mailPasswordChanged(user);
  }

  async function profileOf(user: UserRow): Promise<Profile> {
    const r = await profiles.settings(user.id);
    return {
      firstName: user.first_name,
      secondName: user.second_name,
      email: user.email,
      language: (['en', 'ru', 'zh'].includes(user.language) ? user.language : 'en') as Profile['language'],
      marketingEmails: r.marketing_emails,
      twoFactorEnabled: user.totp_enabled,
      recoveryCodesLeft: r.left,
    };
  }

  return {
    get: profileOf,

    async update(user: UserRow, body: { firstName?: string; secondName?: string; language?: string }): Promise<void> {
      await users.updateNames(user.id, body);
    },

    /** The update, answered with the profile as it now is (the plain and the restricted call). */
    async updateAndGet(
      user: UserRow,
      body: { firstName?: string; secondName?: string; language?: string },
    ): Promise<Profile> {
      await users.updateNames(user.id, body);
      return profileOf({
        ...user,
        first_name: body.firstName ?? user.first_name,
        second_name: body.secondName ?? user.second_name,
        language: body.language ?? user.language,
      });
    },

    /** Changes the password and signs out every other session. */
    async changePassword(user: UserRow, token: TokenRow, current: string, next: string): Promise<void> {
      await checkPassword(user, token, current, 'currentPassword');
      await replacePassword(user, token, next);
    },

    /**
     * set-new-pass: no current password, but a token from the mailbox (POST users/setNewPassword/sendLink).
     * A session alone is no proof: it may be stolen, or come from a one-time link minted with a stolen one.
     */
    async setNewPassword(
      user: UserRow,
      token: TokenRow,
      mailedToken: string | undefined,
      next: string,
      ip: string,
    ): Promise<void> {
      if (!user.is_wg_section_available) throw new ForbiddenError();
      const invalid = new ValidationError({ token: ['Open the link we emailed you to set a new password.'] });
      if (!mailedToken) throw invalid;
      await spend(limiter, LIMITS.linkTriesPerIp, ip);
      if (!(await users.consumeEmailToken(user.id, 'reset', hashToken(mailedToken)))) throw invalid;
      await limiter.refund(LIMITS.linkTriesPerIp, ip);
      await replacePassword(user, token, next);
    },

    async setMarketingEmails(userId: number, enabled: boolean): Promise<void> {
      await users.setMarketingEmails(userId, enabled);
    },

    /** One-click unsubscribe link for marketing emails (RFC 8058): signed, so it needs no sign-in. */
    unsubscribeLink(origin: string, userId: number): string {
      return `${origin}/unsubscribe?u=${userId}&sig=${unsubscribeSignature(userId)}`;
    },
    async unsubscribeBySignature(userId: number, sig: string): Promise<boolean> {
      if (!keys.appSecrets().some((secret) => safeEqual(unsubscribeSignature(userId, secret), sig))) return false;
      await users.setMarketingEmails(userId, false);
      return true;
    },

    async sessions(user: UserRow, current: TokenRow) {
      const rows = await profiles.sessions(user.id);
      return rows.map((r) => ({
        id: Number(r.id),
        current: Number(r.id) === Number(current.id),
        userAgent: r.user_agent,
        createdAt: new Date(r.created_at).toISOString(),
        lastUsedAt: new Date(r.last_used_at).toISOString(),
      }));
    },
    /** Sign out everywhere else: other sessions and every outstanding sign-in or reset link. */
    async revokeOthers(user: UserRow, current: TokenRow) {
      await users.deleteTokensOf(user.id, current.id);
      await deps.endStaffSessions?.(user.id);
      await users.invalidateCredentialTokens(user.id);
    },
    async revokeSession(user: UserRow, id: number) {
      if (!(await users.deleteSessionOf(user.id, id))) throw new NotFoundError('No such session.');
    },

    // --- two-factor ---------------------------------------------------------------------
    async startTwoFactor(user: UserRow) {
      if (user.totp_enabled) throw new ValidationError({ code: ['Two-factor sign-in is already on.'] });
      const secret = newTotpSecret();
      await users.setPendingTotpSecret(user.id, sealSecret(keys, secret));
      return { secret, otpauthUrl: otpauthUrl(secret, deps.productName(user.brand), user.email) };
    },
    async enableTwoFactor(user: UserRow, code: string, ctx: RequestContext) {
      await spend(limiter, LIMITS.totpSetupPerUser, String(user.id));
      if (!(await factor.totp(user.id, await profiles.pendingTotpSecret(user.id), code)))
        throw new ValidationError({ code: [BAD_CODE] });
      await limiter.reset(LIMITS.totpSetupPerUser, String(user.id));
      const codes = Array.from({ length: RECOVERY_CODES }, () =>
        randomToken(9)
          .toLowerCase()
          .replace(/[^a-z0-9]/g, 'x')
          .slice(0, 12)
          .replace(/(.{4})(?!$)/g, '$1-'),
      );
      await db.transaction(async (tx) =>
        usersRepository(tx).enableTotp(
          user.id,
          codes.map((c) => hashToken(normaliseRecoveryCode(c))),
        ),
      );
      await users.invalidateCredentialTokens(user.id);
      deps.security?.twoFactorChanged(user, true, ctx);
      return { recoveryCodes: codes };
    },
    /** Off needs the password AND a current authenticator or recovery code, each within its budget. */
    async disableTwoFactor(user: UserRow, token: TokenRow, password: string, code: string, ctx: RequestContext) {
      if (!user.totp_enabled) return;
      await checkPassword(user, token, password, 'password');
      await spend(limiter, LIMITS.secondFactorPerUser, String(user.id));
      if (!(await factor.check(user, code))) throw new ValidationError({ code: [BAD_CODE] });
      await limiter.reset(LIMITS.secondFactorPerUser, String(user.id));
      await db.transaction(async (tx) => usersRepository(tx).disableTotp(user.id));
      await users.invalidateCredentialTokens(user.id);
      deps.security?.twoFactorChanged(user, false, ctx);
    },
  };
}
export type ProfileService = ReturnType<typeof profileService>;
