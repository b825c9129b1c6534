import type { Profile } from '@warren/contract';
import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { hashPassword, verifyPassword } from '../../lib/passwords.js';
import type { RateLimiter } from '../../lib/rate-limit.js';
import { hashToken, hmac, randomToken, safeEqual } from '../../lib/secrets.js';
import { base32Encode, sealSecret, verifyTotp } from '../../lib/totp.js';
import type { Mailer } from '../../mail/mailer.js';
import { renderMail } from '../../mail/templates.js';
import type { TokenRow, UserRow } from '../users/repository.js';
import { usersRepository } from '../users/repository.js';
import { randomBytes } from 'node:crypto';

const RECENT_SIGN_IN_MS = 15 * 60_000;
const RECOVERY_CODES = 10;

/** Recovery codes look like `abcd-efgh-ijkl`; compared case- and dash-insensitively. */
export const normaliseRecoveryCode = (code: string) => code.toLowerCase().replace(/[^a-z0-9]/g, '');

export function profileService(deps: { db: Database; config: Config; mailer: Mailer; limiter: RateLimiter; defer: (t: () => Promise<unknown>) => void; productName: (brandId: string) => string }) {
  const { db, config } = deps;
  const users = usersRepository(db);

  const unsubscribeSignature = (userId: number) => hmac(`unsubscribe:${config.appSecret}`, String(userId));

  async function mailPasswordChanged(user: UserRow) {
    const m = renderMail('passwordChanged', { language: (['en', 'ru', 'zh'].includes(user.language) ? user.language : 'en') as 'en', productName: deps.productName(user.brand) });
    deps.defer(() => deps.mailer.send({ to: user.email, ...m }));
  }

  return {
    async get(user: UserRow): Promise<Profile> {
      const [r] = (await db.query<{ marketing_emails: boolean; left: number }>(
        `select u.marketing_emails, (select count(*)::int from recovery_codes rc where rc.user_id = u.id and rc.used_at is null) as left from users u where u.id = $1`,
        [user.id],
      )) as [{ marketing_emails: boolean; left: number }];
      return {
        firstName: user.first_name,
        secondName: user.second_name,
        email: user.email,
        language: (['en', 'ru', 'zh'].includes(user.language) ? user.language : 'en') as Profile['language'],
        marketingEmails: r.marketing_emails,
        twoFactorEnabled: user.totp_enabled,
        recoveryCodesLeft: r.left,
      };
    },

    async update(user: UserRow, body: { firstName?: string; secondName?: string; language?: string }): Promise<void> {
      await db.query(
        `update users set first_name = coalesce($2, first_name), second_name = coalesce($3, second_name), language = coalesce($4, language), updated_at = now() where id = $1`,
        [user.id, body.firstName ?? null, body.secondName ?? null, body.language ?? null],
      );
    },

    /** Changes the password and signs out every other session. */
    async changePassword(user: UserRow, token: TokenRow, current: string, next: string): Promise<void> {
      const { count, resetInS } = await deps.limiter.hit(`password:user:${user.id}`, 15 * 60_000);
      if (count > 10) throw new ValidationError({ currentPassword: [`Too many attempts. Try again in ${Math.ceil(resetInS / 60)} minutes.`] });
      if (!(await verifyPassword(user.password_hash, current))) throw new ValidationError({ currentPassword: ['The current password is incorrect.'] });
      await users.setPasswordHash(user.id, await hashPassword(next));
      await users.deleteTokensOf(user.id, token.id);
      await mailPasswordChanged(user);
    },

    /** set-new-pass: no current password, but only right after signing in (a one-time link, a fresh login). */
    async setNewPassword(user: UserRow, token: TokenRow, next: string): Promise<void> {
      if (!user.is_wg_section_available) throw new ForbiddenError();
      if (Date.now() - new Date(token.created_at).getTime() > RECENT_SIGN_IN_MS) throw new ForbiddenError('Sign in again to set a new password.');
      await users.setPasswordHash(user.id, await hashPassword(next));
      await users.deleteTokensOf(user.id, token.id);
      await mailPasswordChanged(user);
    },

    async setMarketingEmails(userId: number, enabled: boolean): Promise<void> {
      await db.query('update users set marketing_emails = $2, updated_at = now() where id = $1', [userId, enabled]);
    },

    /** One-click unsubscribe link for marketing emails (RFC 8058): signed, so it needs no sign-in. */
    unsubscribeLink(origin: string, userId: number): string {
      return `${origin}/unsubscribe?u=${userId}&sig=${unsubscribeSignature(userId)}`;
    },
    async unsubscribeBySignature(userId: number, sig: string): Promise<boolean> {
      if (!safeEqual(unsubscribeSignature(userId), sig)) return false;
      await db.query('update users set marketing_emails = false, updated_at = now() where id = $1', [userId]);
      return true;
    },

    async sessions(user: UserRow, current: TokenRow) {
      const rows = await db.query<{ id: number; user_agent: string; created_at: string; last_used_at: string }>(
        `select id, user_agent, created_at, last_used_at from auth_tokens where user_id = $1 and expires_at > now() and rotated_at is null order by last_used_at desc`,
        [user.id],
      );
      return rows.map((r) => ({ id: Number(r.id), current: Number(r.id) === Number(current.id), userAgent: r.user_agent, createdAt: new Date(r.created_at).toISOString(), lastUsedAt: new Date(r.last_used_at).toISOString() }));
    },
    async revokeOthers(user: UserRow, current: TokenRow) {
      await users.deleteTokensOf(user.id, current.id);
    },
    async revokeSession(user: UserRow, id: number) {
      const rows = await db.query('delete from auth_tokens where id = $1 and user_id = $2 returning id', [id, user.id]);
      if (!rows.length) throw new NotFoundError('No such session.');
    },

    // --- two-factor ---------------------------------------------------------------------
    async startTwoFactor(user: UserRow) {
      if (user.totp_enabled) throw new ValidationError({ code: ['Two-factor sign-in is already on.'] });
      const secret = base32Encode(randomBytes(20));
      await db.query('update users set totp_pending_secret = $2 where id = $1', [user.id, sealSecret(config.appSecret, secret)]);
      const label = encodeURIComponent(`${deps.productName(user.brand)}:${user.email}`);
      return { secret, otpauthUrl: `otpauth://totp/${label}?secret=${secret}&issuer=${encodeURIComponent(deps.productName(user.brand))}&algorithm=SHA1&digits=6&period=30` };
    },
    async enableTwoFactor(user: UserRow, code: string) {
      const [row] = await db.query<{ totp_pending_secret: string | null }>('select totp_pending_secret from users where id = $1', [user.id]);
      if (!row?.totp_pending_secret || !verifyTotp(config.appSecret, row.totp_pending_secret, code)) {
        throw new ValidationError({ code: ['The code is not valid. Check the time on your device and try the current code.'] });
      }
      const codes = Array.from({ length: RECOVERY_CODES }, () => randomToken(9).toLowerCase().replace(/[^a-z0-9]/g, 'x').slice(0, 12).replace(/(.{4})(?!$)/g, '$1-'));
      await db.transaction(async (tx) => {
        await tx.query('update users set totp_secret = totp_pending_secret, totp_pending_secret = null, totp_enabled = true where id = $1', [user.id]);
        await tx.query('delete from recovery_codes where user_id = $1', [user.id]);
        for (const c of codes) await tx.query('insert into recovery_codes (user_id, code_hash) values ($1, $2)', [user.id, hashToken(normaliseRecoveryCode(c))]);
      });
      return { recoveryCodes: codes };
    },
    async disableTwoFactor(user: UserRow, password: string) {
      if (!(await verifyPassword(user.password_hash, password))) throw new ValidationError({ password: ['The password is incorrect.'] });
      await db.query('update users set totp_enabled = false, totp_secret = null, totp_pending_secret = null where id = $1', [user.id]);
      await db.query('delete from recovery_codes where user_id = $1', [user.id]);
    },
  };
}
export type ProfileService = ReturnType<typeof profileService>;
