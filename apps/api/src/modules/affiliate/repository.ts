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
    /**
     * The code's running totals (migration 0029: kept by triggers on affiliate_sessions, users and
     * payments in the same transaction as the rows they count), so a partner's page reads two
     * small rows however many members the code brought.
     */
    async totals(code: string): Promise<{
      clicks: number;
      signups: number;
      paying: number;
      paid: { currency: string; paying: number; total: number }[];
    }> {
      const [counts] = await db.query<{ clicks: number; signups: number; paying: number }>(
        'select clicks, signups, paying from affiliate_counts where referral_id = $1',
        [code],
      );
      const paid = await db.query<{ currency: string; paying: number; total: number }>(
        `select currency, paying, total_minor::float8 as total from affiliate_paid
         where referral_id = $1 and paying > 0 order by currency`,
        [code],
      );
      return { clicks: counts?.clicks ?? 0, signups: counts?.signups ?? 0, paying: counts?.paying ?? 0, paid };
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
