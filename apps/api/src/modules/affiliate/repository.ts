import type { Queryable } from '../../db/client.js';

/** The affiliate programme's tables and reports: clicks (affiliate_sessions), payments of the members a referral code brought. */
export function affiliateRepository(db: Queryable) {
  return {
    /** One click on a referral link; the user is attached when signed in. */
    async recordSession(referralId: string, url: string, userId: number | null): Promise<void> {
      await db.query('insert into affiliate_sessions (referral_id, url, user_id) values ($1, $2, $3)', [
        referralId,
        url.slice(0, 2048),
        userId,
      ]);
    },
    async clicks(code: string): Promise<number> {
      const [row] = await db.query<{ n: number }>(
        'select count(*)::int as n from affiliate_sessions where referral_id = $1',
        [code],
      );
      return row?.n ?? 0;
    },
    /** Paid totals per currency of the members who signed up with the code. */
    paidByCurrency: (code: string) =>
      db.query<{ users: number; currency: string; total: number }>(
        `select count(distinct p.user_id)::int as users, p.currency, sum(p.amount_minor)::int as total
         from payments p join users u on u.id = p.user_id
         where u.attribution->>'referralID' = $1 and p.status = 'succeeded' and p.amount_minor > 0 group by p.currency`,
        [code],
      ),
    async payingReferrals(code: string): Promise<number> {
      const [row] = await db.query<{ n: number }>(
        `select count(distinct p.user_id)::int as n from payments p join users u on u.id = p.user_id
         where u.attribution->>'referralID' = $1 and p.status = 'succeeded' and p.amount_minor > 0`,
        [code],
      );
      return row?.n ?? 0;
    },
  };
}

/** The account's part of an erasure: the clicks it made, and the clicks on its own referral link (a partner's statistics). */
export async function eraseAffiliateData(
  tx: Queryable,
  account: { userId: number; referralCode: string | null },
): Promise<void> {
  await tx.query('delete from affiliate_sessions where user_id = $1 or ($2::text is not null and referral_id = $2)', [
    account.userId,
    account.referralCode,
  ]);
}
