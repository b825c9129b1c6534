import type { Queryable } from '../../db/client.js';

/** The profile's reads (settings, sessions, the pending two-factor secret); its writes are the users repository's, the one writer of users, auth_tokens and recovery_codes. */
export function profileRepository(db: Queryable) {
  return {
    async settings(userId: number): Promise<{ marketing_emails: boolean; left: number }> {
      const [r] = await db.query<{ marketing_emails: boolean; left: number }>(
        `select u.marketing_emails, (select count(*)::int from recovery_codes rc where rc.user_id = u.id and rc.used_at is null) as left from users u where u.id = $1`,
        [userId],
      );
      return r ?? { marketing_emails: false, left: 0 };
    },

    async sessions(userId: number) {
      return db.query<{ id: number; user_agent: string; created_at: string; last_used_at: string }>(
        `select id, user_agent, created_at, last_used_at from auth_tokens where user_id = $1 and expires_at > now() and rotated_at is null order by last_used_at desc`,
        [userId],
      );
    },

    async pendingTotpSecret(userId: number): Promise<string | null> {
      const [row] = await db.query<{ totp_pending_secret: string | null }>(
        'select totp_pending_secret from users where id = $1',
        [userId],
      );
      return row?.totp_pending_secret ?? null;
    },
  };
}
