import type { Queryable } from '../../db/client.js';

/** Profile, sessions and two-factor storage (the account's own rows live in users/repository.ts). */
export function profileRepository(db: Queryable) {
  return {
    async settings(userId: number): Promise<{ marketing_emails: boolean; left: number }> {
      const [r] = await db.query<{ marketing_emails: boolean; left: number }>(
        `select u.marketing_emails, (select count(*)::int from recovery_codes rc where rc.user_id = u.id and rc.used_at is null) as left from users u where u.id = $1`,
        [userId],
      );
      return r ?? { marketing_emails: false, left: 0 };
    },

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

    async sessions(userId: number) {
      return db.query<{ id: number; user_agent: string; created_at: string; last_used_at: string }>(
        `select id, user_agent, created_at, last_used_at from auth_tokens where user_id = $1 and expires_at > now() and rotated_at is null order by last_used_at desc`,
        [userId],
      );
    },

    async deleteSession(userId: number, id: number): Promise<boolean> {
      const rows = await db.query('delete from auth_tokens where id = $1 and user_id = $2 returning id', [id, userId]);
      return rows.length > 0;
    },

    async setPendingTotpSecret(userId: number, sealed: string): Promise<void> {
      await db.query('update users set totp_pending_secret = $2 where id = $1', [userId, sealed]);
    },

    async pendingTotpSecret(userId: number): Promise<string | null> {
      const [row] = await db.query<{ totp_pending_secret: string | null }>(
        'select totp_pending_secret from users where id = $1',
        [userId],
      );
      return row?.totp_pending_secret ?? null;
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
  };
}
