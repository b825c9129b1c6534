import type { Queryable } from '../../db/client.js';

export interface UserRow {
  id: number;
  email: string;
  password_hash: string;
  verified: boolean;
  account_status: string;
  first_name: string;
  second_name: string;
  language: string;
  brand: string;
  is_post_affiliate_available: boolean;
  is_wg_section_available: boolean;
  tariff_name: string;
  tariff_key: string;
  subscription_expires_at: Date | string | null;
  totp_enabled: boolean;
  totp_secret: string | null;
  deleted_at: Date | string | null;
  [key: string]: unknown;
}

export interface TokenRow {
  id: number;
  user_id: number;
  created_at: Date | string;
  last_used_at: Date | string;
  expires_at: Date | string;
  rotated_at: Date | string | null;
}

export type EmailTokenPurpose = 'verify' | 'reset' | 'onetime';

const USER_COLUMNS = `u.id, u.email, u.password_hash, u.verified, u.account_status, u.first_name, u.second_name, u.language, u.brand,
  u.is_post_affiliate_available, u.is_wg_section_available, u.tariff_name, u.tariff_key, u.subscription_expires_at,
  u.totp_enabled, u.totp_secret, u.deleted_at`;

export function usersRepository(db: Queryable) {
  return {
    async findById(id: number): Promise<UserRow | undefined> {
      const [row] = await db.query<UserRow>(`select ${USER_COLUMNS} from users u where u.id = $1 and u.deleted_at is null`, [id]);
      return row;
    },

    async findByEmail(email: string): Promise<UserRow | undefined> {
      const [row] = await db.query<UserRow>(
        `select ${USER_COLUMNS} from users u where lower(u.email) = lower($1) and u.deleted_at is null`,
        [email],
      );
      return row;
    },

    /** Returns undefined when the email is taken (unique index), so concurrent sign-ups cannot both win. */
    async insert(u: {
      email: string;
      passwordHash: string;
      firstName: string;
      language: string;
      brand: string;
      attribution: Record<string, unknown>;
      marketingEmails: boolean;
    }): Promise<UserRow | undefined> {
      const [row] = await db.query<UserRow>(
        `insert into users as u (email, password_hash, first_name, language, brand, attribution, marketing_emails)
         values ($1, $2, $3, $4, $5, $6, $7)
         on conflict (lower(email)) do nothing
         returning ${USER_COLUMNS}`,
        [u.email, u.passwordHash, u.firstName, u.language, u.brand, JSON.stringify(u.attribution), u.marketingEmails],
      );
      return row;
    },

    async markVerified(id: number, activate: boolean): Promise<void> {
      await db.query(
        `update users set verified = true, account_status = case when $2 then 'Active' else account_status end, updated_at = now()
         where id = $1`,
        [id, activate],
      );
    },

    async mergeAttribution(id: number, fields: Record<string, unknown>): Promise<void> {
      await db.query(`update users set attribution = attribution || $2::jsonb, updated_at = now() where id = $1`, [id, JSON.stringify(fields)]);
    },

    async setPasswordHash(id: number, hash: string): Promise<void> {
      await db.query(`update users set password_hash = $2, updated_at = now() where id = $1`, [id, hash]);
    },

    /** Erases personal data but keeps the row (payments reference it); the email is freed for a new sign-up. */
    async erase(id: number): Promise<void> {
      await db.query(
        `update users set email = 'deleted-' || id || '@deleted.invalid', password_hash = '', first_name = '', second_name = '',
           attribution = '{}'::jsonb, totp_secret = null, totp_enabled = false, marketing_emails = false,
           account_status = 'Suspended', deleted_at = now(), updated_at = now()
         where id = $1`,
        [id],
      );
      await db.query(`delete from auth_tokens where user_id = $1`, [id]);
      await db.query(`delete from email_tokens where user_id = $1`, [id]);
    },

    // --- bearer tokens -------------------------------------------------------------------

    async insertToken(userId: number, tokenHash: string, expiresAt: Date, userAgent: string): Promise<number> {
      const [row] = await db.query<{ id: number }>(
        `insert into auth_tokens (user_id, token_hash, expires_at, user_agent) values ($1, $2, $3, $4) returning id`,
        [userId, tokenHash, expiresAt, userAgent.slice(0, 300)],
      );
      return row!.id;
    },

    /** One query on the hot path: the live token and its user. */
    async findSession(tokenHash: string): Promise<{ token: TokenRow; user: UserRow } | undefined> {
      const [row] = await db.query<UserRow & { t_id: number; t_created_at: string; t_last_used_at: string; t_expires_at: string; t_rotated_at: string | null }>(
        `select ${USER_COLUMNS}, t.id as t_id, t.created_at as t_created_at, t.last_used_at as t_last_used_at,
                t.expires_at as t_expires_at, t.rotated_at as t_rotated_at
         from auth_tokens t join users u on u.id = t.user_id
         where t.token_hash = $1 and t.expires_at > now() and u.deleted_at is null`,
        [tokenHash],
      );
      if (!row) return undefined;
      return {
        token: { id: row.t_id, user_id: row.id, created_at: row.t_created_at, last_used_at: row.t_last_used_at, expires_at: row.t_expires_at, rotated_at: row.t_rotated_at },
        user: row,
      };
    },

    async touchToken(id: number, expiresAt: Date): Promise<void> {
      await db.query(`update auth_tokens set last_used_at = now(), expires_at = $2 where id = $1 and rotated_at is null`, [id, expiresAt]);
    },

    /** Marks a token as replaced, once: returns false when a parallel request rotated it first. */
    async retireToken(id: number, graceUntil: Date): Promise<boolean> {
      const rows = await db.query(`update auth_tokens set rotated_at = now(), expires_at = $2 where id = $1 and rotated_at is null returning id`, [id, graceUntil]);
      return rows.length === 1;
    },

    async deleteToken(id: number): Promise<void> {
      await db.query(`delete from auth_tokens where id = $1`, [id]);
    },

    async deleteTokensOf(userId: number, exceptId?: number): Promise<void> {
      await db.query(`delete from auth_tokens where user_id = $1 and id <> coalesce($2, -1)`, [userId, exceptId ?? null]);
    },

    // --- single-use email tokens ---------------------------------------------------------

    async insertEmailToken(userId: number, purpose: EmailTokenPurpose, tokenHash: string, expiresAt: Date, payload: Record<string, unknown> = {}): Promise<void> {
      await db.query(
        `insert into email_tokens (user_id, purpose, token_hash, expires_at, payload) values ($1, $2, $3, $4, $5)`,
        [userId, purpose, tokenHash, expiresAt, JSON.stringify(payload)],
      );
    },

    /** Uses a token atomically: only one caller ever gets the row back. */
    async consumeEmailToken(userId: number, purpose: EmailTokenPurpose, tokenHash: string): Promise<{ payload: Record<string, unknown> } | undefined> {
      const [row] = await db.query<{ payload: Record<string, unknown> }>(
        `update email_tokens set used_at = now()
         where user_id = $1 and purpose = $2 and token_hash = $3 and used_at is null and expires_at > now()
         returning payload`,
        [userId, purpose, tokenHash],
      );
      return row;
    },

    async invalidateEmailTokens(userId: number, purpose: EmailTokenPurpose): Promise<void> {
      await db.query(`update email_tokens set used_at = now() where user_id = $1 and purpose = $2 and used_at is null`, [userId, purpose]);
    },
  };
}
export type UsersRepository = ReturnType<typeof usersRepository>;
