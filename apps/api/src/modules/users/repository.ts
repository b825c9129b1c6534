import type { Queryable } from '../../db/client.js';

import type { TokenRow, UserRow } from '../../types/account.js';

export type { TokenRow, UserRow };

export type EmailTokenPurpose = 'verify' | 'reset' | 'onetime';

const USER_COLUMNS = `u.id, u.email, u.password_hash, u.verified, u.account_status, u.first_name, u.second_name, u.language, u.brand,
  u.is_post_affiliate_available, u.is_wg_section_available, u.tariff_name, u.tariff_key, u.subscription_expires_at,
  u.totp_enabled, u.totp_secret, u.deleted_at`;

export function usersRepository(db: Queryable) {
  return {
    async findById(id: number): Promise<UserRow | undefined> {
      const [row] = await db.query<UserRow>(
        `select ${USER_COLUMNS} from users u where u.id = $1 and u.deleted_at is null`,
        [id],
      );
      return row;
    },

    /**
     * The affiliate-portal flag (spec: the menu's affiliate link opens the brand's portal for
     * accounts that have it). Answers the value it had, null when no such account; one statement,
     * so parallel switches cannot both read the old value.
     */
    async setAffiliatePortal(userId: number, on: boolean): Promise<boolean | null> {
      const [row] = await db.query<{ previous: boolean }>(
        `update users u set is_post_affiliate_available = $2 from (select id, is_post_affiliate_available as previous from users where id = $1 and deleted_at is null for update) old
          where u.id = old.id returning old.previous`,
        [userId, on],
      );
      return row ? row.previous : null;
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

    /**
     * Uses a verification token and marks the account verified in ONE statement: a parallel request
     * that finds the token used also finds the account verified ("already verified", not "invalid").
     */
    async consumeVerifyToken(userId: number, tokenHash: string, activate: boolean): Promise<boolean> {
      const rows = await db.query(
        `with used as (
           update email_tokens set used_at = now()
           where user_id = $1 and purpose = 'verify' and token_hash = $2 and used_at is null and expires_at > now()
           returning user_id
         )
         update users set verified = true, account_status = case when $3 then 'Active' else account_status end, updated_at = now()
         where id in (select user_id from used) returning id`,
        [userId, tokenHash, activate],
      );
      return rows.length === 1;
    },

    async mergeAttribution(id: number, fields: Record<string, unknown>): Promise<void> {
      await db.query(`update users set attribution = attribution || $2::jsonb, updated_at = now() where id = $1`, [
        id,
        JSON.stringify(fields),
      ]);
    },

    /** Adds only the fields the account does not have yet (the first value is the one that converted). */
    async fillAttribution(id: number, fields: Record<string, unknown>): Promise<void> {
      await db.query(`update users set attribution = $2::jsonb || attribution, updated_at = now() where id = $1`, [
        id,
        JSON.stringify(fields),
      ]);
    },

    /**
     * Spends a TOTP time step: succeeds only when it is later than every step used before, in one
     * conditional UPDATE, so one code signs in once even when sent in parallel.
     */
    async useTotpStep(id: number, step: number): Promise<boolean> {
      const rows = await db.query(
        `update users set totp_last_step = $2 where id = $1 and (totp_last_step is null or totp_last_step < $2) returning id`,
        [id, step],
      );
      return rows.length === 1;
    },

    /** A recovery code stands in for the authenticator once: marked used atomically. */
    async useRecoveryCode(userId: number, codeHash: string): Promise<boolean> {
      const rows = await db.query(
        `update recovery_codes set used_at = now()
         where id = (select id from recovery_codes where user_id = $1 and code_hash = $2 and used_at is null limit 1) and used_at is null
         returning id`,
        [userId, codeHash],
      );
      return rows.length === 1;
    },

    /** Unused recovery codes left (the recovery-code notice says how many). */
    async recoveryCodesLeft(userId: number): Promise<number> {
      const [r] = await db.query<{ n: number }>(
        `select count(*)::int as n from recovery_codes where user_id = $1 and used_at is null`,
        [userId],
      );
      return r?.n ?? 0;
    },

    async setPasswordHash(id: number, hash: string): Promise<void> {
      await db.query(`update users set password_hash = $2, updated_at = now() where id = $1`, [id, hash]);
    },

    /**
     * Erases the account's row and what the accounts area keeps about it (README: the data map): the
     * row stays as a stub under its number (payments and receipts name it), with a placeholder email
     * that says nothing about the old one, so the address is free for a new sign-up. Sessions, emailed
     * links and recovery codes go; codes the account handed out (referral, friend) are taken back
     * from the members who signed up with them. Answers the codes it had, or undefined when the
     * account was deleted already: the row is locked first, so of two deletions at once one erases.
     */
    async erase(
      id: number,
    ): Promise<{ email: string; referralCode: string | null; friendCode: string | null } | undefined> {
      const [old] = await db.query<{ email: string; referral_code: string | null; friend_code: string | null }>(
        `select email, referral_code, friend_code from users where id = $1 and deleted_at is null for update`,
        [id],
      );
      if (!old) return undefined;
      await db.query(
        `update users set email = 'deleted-' || id || '@deleted.invalid', password_hash = '', first_name = '', second_name = '',
           verified = false, language = 'en', attribution = '{}'::jsonb, marketing_emails = false, is_post_affiliate_available = false,
           totp_secret = null, totp_pending_secret = null, totp_enabled = false, totp_last_step = null, referral_code = null, friend_code = null,
           tariff_key = 'free-plan', tariff_name = 'Free', subscription_expires_at = null,
           account_status = 'Suspended', deleted_at = now(), updated_at = now()
         where id = $1`,
        [id],
      );
      await db.query(`delete from auth_tokens where user_id = $1`, [id]);
      await db.query(`delete from email_tokens where user_id = $1`, [id]);
      await db.query(`delete from known_browsers where user_id = $1`, [id]);
      await db.query(`delete from recovery_codes where user_id = $1`, [id]);
      // Members who came through the account's links keep their account, not a pointer to the deleted one's codes.
      await db.query(
        `update users set attribution = attribution - 'referralID' where $1::text is not null and attribution->>'referralID' = $1`,
        [old.referral_code],
      );
      await db.query(
        `update users set attribution = attribution - 'friendID' where $1::text is not null and attribution->>'friendID' = $1`,
        [old.friend_code],
      );
      return { email: old.email, referralCode: old.referral_code, friendCode: old.friend_code };
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
      const [row] = await db.query<
        UserRow & {
          t_id: number;
          t_created_at: string;
          t_last_used_at: string;
          t_expires_at: string;
          t_rotated_at: string | null;
          t_user_agent: string;
        }
      >(
        `select ${USER_COLUMNS}, t.id as t_id, t.created_at as t_created_at, t.last_used_at as t_last_used_at,
                t.expires_at as t_expires_at, t.rotated_at as t_rotated_at, t.user_agent as t_user_agent
         from auth_tokens t join users u on u.id = t.user_id
         where t.token_hash = $1 and t.expires_at > now() and u.deleted_at is null`,
        [tokenHash],
      );
      if (!row) return undefined;
      return {
        token: {
          id: row.t_id,
          user_id: row.id,
          created_at: row.t_created_at,
          last_used_at: row.t_last_used_at,
          expires_at: row.t_expires_at,
          rotated_at: row.t_rotated_at,
          user_agent: row.t_user_agent,
        },
        user: row,
      };
    },

    async touchToken(id: number, expiresAt: Date): Promise<void> {
      await db.query(
        `update auth_tokens set last_used_at = now(), expires_at = $2 where id = $1 and rotated_at is null`,
        [id, expiresAt],
      );
    },

    /** Marks a token as replaced, once: returns false when a parallel request rotated it first. */
    async retireToken(id: number, graceUntil: Date): Promise<boolean> {
      const rows = await db.query(
        `update auth_tokens set rotated_at = now(), expires_at = $2 where id = $1 and rotated_at is null returning id`,
        [id, graceUntil],
      );
      return rows.length === 1;
    },

    async deleteToken(id: number): Promise<void> {
      await db.query(`delete from auth_tokens where id = $1`, [id]);
    },

    /**
     * Signs out every other session (sign-out-everywhere, password change or reset); answers how many
     * ended. The account's console sessions are the staff repository's (a new password ends them by
     * trigger; sign-out-everywhere through the staff sessions' `endSessionsOf`).
     */
    async deleteTokensOf(userId: number, exceptId?: number): Promise<number> {
      const rows = await db.query(
        `delete from auth_tokens where user_id = $1 and id <> coalesce($2, -1) returning id`,
        [userId, exceptId ?? null],
      );
      return rows.length;
    },
    /** Suspended (disable) or back to what the account had earned (enable); answers whether it changed. */
    async setDisabled(userId: number, disabled: boolean): Promise<boolean> {
      const rows = await db.query(
        disabled
          ? `update users set account_status = 'Suspended', updated_at = now() where id = $1 and deleted_at is null and account_status <> 'Suspended' returning id`
          : `update users set account_status = case when verified or tariff_key <> 'free-plan' then 'Active' else 'Inactive' end, updated_at = now()
             where id = $1 and deleted_at is null and account_status = 'Suspended' returning id`,
        [userId],
      );
      return rows.length === 1;
    },

    // --- single-use email tokens ---------------------------------------------------------

    async insertEmailToken(
      userId: number,
      purpose: EmailTokenPurpose,
      tokenHash: string,
      expiresAt: Date,
      payload: Record<string, unknown> = {},
    ): Promise<void> {
      await db.query(
        `insert into email_tokens (user_id, purpose, token_hash, expires_at, payload) values ($1, $2, $3, $4, $5)`,
        [userId, purpose, tokenHash, expiresAt, JSON.stringify(payload)],
      );
    },

    /**
     * The one live one-time link of a user: ends the earlier ones and stores the new one under a
     * lock on the user's row, so parallel mints still leave exactly one link that works.
     * Run it inside a transaction.
     */
    async replaceOnetimeToken(
      userId: number,
      tokenHash: string,
      expiresAt: Date,
      payload: Record<string, unknown>,
    ): Promise<void> {
      await db.query(`select id from users where id = $1 for update`, [userId]);
      await db.query(
        `update email_tokens set used_at = now() where user_id = $1 and purpose = 'onetime' and used_at is null`,
        [userId],
      );
      await db.query(
        `insert into email_tokens (user_id, purpose, token_hash, expires_at, payload) values ($1, 'onetime', $2, $3, $4)`,
        [userId, tokenHash, expiresAt, JSON.stringify(payload)],
      );
    },

    /** Uses a token atomically: only one caller ever gets the row back. */
    async consumeEmailToken(
      userId: number,
      purpose: EmailTokenPurpose,
      tokenHash: string,
    ): Promise<{ payload: Record<string, unknown> } | undefined> {
      const [row] = await db.query<{ payload: Record<string, unknown> }>(
        `update email_tokens set used_at = now()
         where user_id = $1 and purpose = $2 and token_hash = $3 and used_at is null and expires_at > now()
         returning payload`,
        [userId, purpose, tokenHash],
      );
      return row;
    },

    async invalidateEmailTokens(userId: number, purpose: EmailTokenPurpose): Promise<void> {
      await db.query(
        `update email_tokens set used_at = now() where user_id = $1 and purpose = $2 and used_at is null`,
        [userId, purpose],
      );
    },

    /**
     * Every change of credentials ends every link that could sign in or set a password: one-time
     * sign-in links and reset links. Verification links stay: they prove the mailbox and sign nobody in.
     */
    async invalidateCredentialTokens(userId: number): Promise<void> {
      await db.query(
        `update email_tokens set used_at = now() where user_id = $1 and purpose in ('reset', 'onetime') and used_at is null`,
        [userId],
      );
    },

    // --- the profile's changes (modules/profile) ------------------------------------------

    async updateNames(
      userId: number,
      body: { firstName?: string; secondName?: string; language?: string },
    ): Promise<void> {
      await db.query(
        `update users set first_name = coalesce($2, first_name), second_name = coalesce($3, second_name), language = coalesce($4, language), updated_at = now() where id = $1`,
        [userId, body.firstName ?? null, body.secondName ?? null, body.language ?? null],
      );
    },

    async setMarketingEmails(userId: number, enabled: boolean): Promise<void> {
      await db.query('update users set marketing_emails = $2, updated_at = now() where id = $1', [userId, enabled]);
    },

    async deleteSessionOf(userId: number, id: number): Promise<boolean> {
      const rows = await db.query('delete from auth_tokens where id = $1 and user_id = $2 returning id', [id, userId]);
      return rows.length > 0;
    },

    async setPendingTotpSecret(userId: number, sealed: string): Promise<void> {
      await db.query('update users set totp_pending_secret = $2 where id = $1', [userId, sealed]);
    },

    /** Turns two-factor on with the pending secret and a fresh set of recovery codes, in one transaction. */
    async enableTotp(userId: number, codeHashes: string[]): Promise<void> {
      await db.query(
        'update users set totp_secret = totp_pending_secret, totp_pending_secret = null, totp_enabled = true where id = $1',
        [userId],
      );
      await db.query('delete from recovery_codes where user_id = $1', [userId]);
      for (const h of codeHashes)
        await db.query('insert into recovery_codes (user_id, code_hash) values ($1, $2)', [userId, h]);
    },

    /** Off, and the secret forgotten; the last used step stays, so an old code of a re-enabled secret cannot come back. */
    async disableTotp(userId: number): Promise<void> {
      await db.query(
        'update users set totp_enabled = false, totp_secret = null, totp_pending_secret = null where id = $1',
        [userId],
      );
      await db.query('delete from recovery_codes where user_id = $1', [userId]);
    },

    /** Whether this exact token was ever issued to the user for this purpose (used or expired). */
    async emailTokenIssued(userId: number, purpose: EmailTokenPurpose, tokenHash: string): Promise<boolean> {
      const rows = await db.query(
        `select 1 from email_tokens where user_id = $1 and purpose = $2 and token_hash = $3`,
        [userId, purpose, tokenHash],
      );
      return rows.length > 0;
    },
  };
}
export type UsersRepository = ReturnType<typeof usersRepository>;

/**
 * A member's plan as the billing area reads and writes it (the users table's tariff and expiry
 * columns), for payments, refunds, lapsed plans and receipts.
 */
export interface UserPlanRow {
  tariff_key: string;
  tariff_name: string;
  subscription_expires_at: Date | string | null;
  email: string;
  language: string;
  verified: boolean;
  brand: string;
  /** Set once the account was deleted (the row is an erased stub). */
  deleted_at: Date | string | null;
}
export function userPlansRepository(db: Queryable) {
  return {
    /** The member's plan, locked for the rest of the transaction. */
    async lockPlan(userId: number): Promise<UserPlanRow | undefined> {
      const [row] = await db.query<UserPlanRow>(
        'select tariff_key, tariff_name, subscription_expires_at, email, language, verified, brand, deleted_at from users where id = $1 for update',
        [userId],
      );
      return row;
    },
    async plan(userId: number): Promise<UserPlanRow | undefined> {
      const [row] = await db.query<UserPlanRow>(
        'select tariff_key, tariff_name, subscription_expires_at, email, language, verified, brand, deleted_at from users where id = $1',
        [userId],
      );
      return row;
    },
    /** Sets the plan; `activate` also marks the account Active (a payment did it), unless staff disabled it (Suspended). */
    async savePlan(
      userId: number,
      plan: { tariffKey: string; tariffName: string; expiresAt: Date | null },
      activate: boolean,
    ): Promise<void> {
      await db.query(
        `update users set tariff_key = $2, tariff_name = $3, subscription_expires_at = $4,
           account_status = case when $5 and account_status <> 'Suspended' then 'Active' else account_status end, updated_at = now() where id = $1`,
        [userId, plan.tariffKey, plan.tariffName, plan.expiresAt, activate],
      );
    },
    /** Lapsed paid plans return to the free plan; answers the users changed. */
    async expireLapsed(freeName: string, now: Date): Promise<number[]> {
      const rows = await db.query<{ id: number }>(
        `update users set tariff_key = 'free-plan', tariff_name = $1, subscription_expires_at = null, updated_at = now()
         where tariff_key <> 'free-plan' and subscription_expires_at is not null and subscription_expires_at <= $2 returning id`,
        [freeName, now],
      );
      return rows.map((r) => r.id);
    },
    /** The marketing attribution ids the sign-up carried (postbacks). */
    async attribution(userId: number): Promise<Record<string, string>> {
      const [row] = await db.query<{ attribution: Record<string, string> | null }>(
        'select attribution from users where id = $1',
        [userId],
      );
      return row?.attribution ?? {};
    },
  };
}

/** Verified accounts that accept news and offers (optionally of one brand), for `warren mail announce`. */
export function newsletterRecipients(db: Queryable, brand?: string) {
  return db.query<{ id: number; email: string; brand: string }>(
    `select id, email, brand from users where marketing_emails and verified and deleted_at is null ${brand !== undefined ? 'and brand = $1' : ''} order by id`,
    brand !== undefined ? [brand] : [],
  );
}

/** The id of the (not deleted) account with this email, for operator tools. */
export async function userIdByEmail(db: Queryable, email: string): Promise<number | undefined> {
  return (await usersRepository(db).findByEmail(email))?.id;
}

/** The users table as the affiliate and rewards modules need it: link codes, who invited whom, reward days. */
export function userReferralsRepository(db: Queryable) {
  return {
    async code(userId: number, column: 'referral_code' | 'friend_code'): Promise<string | null> {
      const [row] = await db.query<{ code: string | null }>(`select ${column} as code from users where id = $1`, [
        userId,
      ]);
      return row?.code ?? null;
    },
    /** Sets the code unless the user has one; undefined when they had one. Throws on a unique collision. */
    async setCodeIfNone(
      userId: number,
      column: 'referral_code' | 'friend_code',
      code: string,
    ): Promise<string | undefined> {
      const [set] = await db.query<{ code: string }>(
        `update users set ${column} = $2 where id = $1 and ${column} is null returning ${column} as code`,
        [userId, code],
      );
      return set?.code;
    },
    /** Accounts that signed up with this code in their attribution. */
    async countSignedUpWith(key: 'referralID' | 'friendID', code: string): Promise<number> {
      const [row] = await db.query<{ n: number }>(
        `select count(*)::int as n from users where attribution->>'${key}' = $1`,
        [code],
      );
      return row?.n ?? 0;
    },
    /** The (not deleted) member whose friend link this user signed up with. */
    async inviterOf(userId: number): Promise<number | undefined> {
      const [row] = await db.query<{ inviter: number | null }>(
        `select i.id as inviter from users u join users i on i.friend_code = u.attribution->>'friendID' and i.id <> u.id and i.deleted_at is null where u.id = $1`,
        [userId],
      );
      return row?.inviter ?? undefined;
    },
    /** Free days stack on an active paid plan, or start one (the monthly plan's features) from now. */
    async addPlanDays(userId: number, days: number): Promise<void> {
      await db.query(
        `update users set
           tariff_key = case when tariff_key = 'free-plan' then '1-month' else tariff_key end,
           tariff_name = case when tariff_key = 'free-plan' then (select name from tariffs where key = '1-month') else tariff_name end,
           subscription_expires_at = case
             when tariff_key <> 'free-plan' and subscription_expires_at is null then null
             else greatest(coalesce(subscription_expires_at, now()), now()) + ($2 || ' days')::interval end,
           updated_at = now()
         where id = $1 and deleted_at is null`,
        [userId, String(days)],
      );
    },
  };
}

/** Browsers remembered per account: at most this many, the most recently seen. */
const KNOWN_BROWSERS_PER_ACCOUNT = 50;

/**
 * The browsers an account has signed in from (known_browsers: an HMAC per account and browser,
 * see migration 0016). `record` must run inside a transaction: it locks the account's row first,
 * so parallel sign-ins of one account are decided one after the other and exactly one of them
 * finds a given browser new.
 */
export function knownBrowsersRepository(tx: Queryable) {
  return {
    /** 'known' (seen before; its time refreshed), 'new' (other browsers known, not this one), 'first' (none known yet). */
    async record(
      userId: number,
      browserHash: string,
      previousHashes: readonly string[] = [],
    ): Promise<'known' | 'new' | 'first'> {
      const [account] = await tx.query(`select id from users where id = $1 and deleted_at is null for update`, [
        userId,
      ]);
      if (!account) return 'known';
      await tx.query(`delete from known_browsers where user_id = $1 and last_seen_at < now() - interval '400 days'`, [
        userId,
      ]);
      const seen = await tx.query(
        `update known_browsers set last_seen_at = now() where user_id = $1 and browser_hash = $2 returning user_id`,
        [userId, browserHash],
      );
      if (seen.length) return 'known';
      // Remembered under a secret since replaced (APP_SECRET_PREVIOUS): known, and moved under the current one.
      if (previousHashes.length) {
        const moved = await tx.query(
          `update known_browsers set browser_hash = $2, last_seen_at = now()
             where user_id = $1 and browser_hash = (select browser_hash from known_browsers where user_id = $1 and browser_hash = any($3::text[]) limit 1) returning user_id`,
          [userId, browserHash, previousHashes],
        );
        if (moved.length) return 'known';
      }
      const [{ n }] = (await tx.query<{ n: number }>(
        `select count(*)::int as n from known_browsers where user_id = $1`,
        [userId],
      )) as [{ n: number }];
      await tx.query(`insert into known_browsers (user_id, browser_hash) values ($1, $2) on conflict do nothing`, [
        userId,
        browserHash,
      ]);
      if (n >= KNOWN_BROWSERS_PER_ACCOUNT) {
        await tx.query(
          `delete from known_browsers where user_id = $1 and browser_hash in
             (select browser_hash from known_browsers where user_id = $1 order by last_seen_at desc offset $2)`,
          [userId, KNOWN_BROWSERS_PER_ACCOUNT],
        );
      }
      return n === 0 ? 'first' : 'new';
    },
  };
}
