import type { Database, Queryable } from '../../db/client.js';
import { randomToken } from '../../lib/secrets.js';
import { affiliateRepository } from './repository.js';
import { type UserRow, userReferralsRepository } from '../users/index.js';

/** Short, URL-safe, unambiguous codes for referral and friend links. */
export function newCode(): string {
  return randomToken(8)
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 8)
    .toLowerCase()
    .padEnd(8, '7');
}

/** Gives the user a code in `column` if they have none yet, retrying on the rare collision. */
export async function ensureCode(
  db: Queryable,
  userId: number,
  column: 'referral_code' | 'friend_code',
): Promise<string> {
  const users = userReferralsRepository(db);
  for (let attempt = 0; attempt < 5; attempt++) {
    const code = await users.code(userId, column);
    if (code) return code;
    try {
      const set = await users.setCodeIfNone(userId, column, newCode());
      if (set) return set;
    } catch {
      /* unique collision: try another code */
    }
  }
  throw new Error('could not allocate a code');
}

/**
 * The in-app affiliate programme: a referral link (?referralID=CODE), clicks recorded by
 * affiliate/session/create, sign-ups that carried the code, referrals who paid, and the
 * commission earned on their payments.
 */
export function affiliateService(
  db: Database,
  opts: { commissionPercent: number; portalUrl: (u: UserRow) => string | null },
) {
  return {
    /** A click on a referral link (affiliate/session/create), signed in or not. */
    recordSession: (referralId: string, url: string, userId: number | null) =>
      affiliateRepository(db).recordSession(referralId, url, userId),

    async stats(user: UserRow, origin: string) {
      const code = await ensureCode(db, user.id, 'referral_code');
      const totals = await affiliateRepository(db).totals(code);
      return {
        referralId: code,
        link: `${origin}/checkout?referralID=${code}`,
        clicks: totals.clicks,
        signups: totals.signups,
        payingReferrals: totals.paying,
        commissionPercent: opts.commissionPercent,
        earnings: totals.paid.map((p) => ({
          currency: p.currency,
          amount: Math.floor((p.total * opts.commissionPercent) / 100),
        })),
        portalUrl: opts.portalUrl(user),
      };
    },
  };
}
export type AffiliateService = ReturnType<typeof affiliateService>;
