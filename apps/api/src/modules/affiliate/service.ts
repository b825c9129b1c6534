import type { Database, Queryable } from '../../db/client.js';
import { randomToken } from '../../lib/secrets.js';
import type { UserRow } from '../users/repository.js';

/** Short, URL-safe, unambiguous codes for referral and friend links. */
export function newCode(): string {
  return randomToken(8).replace(/[^A-Za-z0-9]/g, '').slice(0, 8).toLowerCase().padEnd(8, '7');
}

/** Gives the user a code in `column` if they have none yet, retrying on the rare collision. */
export async function ensureCode(db: Queryable, userId: number, column: 'referral_code' | 'friend_code'): Promise<string> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const [row] = await db.query<{ code: string | null }>(`select ${column} as code from users where id = $1`, [userId]);
    if (row?.code) return row.code;
    try {
      const [set] = await db.query<{ code: string }>(`update users set ${column} = $2 where id = $1 and ${column} is null returning ${column} as code`, [userId, newCode()]);
      if (set) return set.code;
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
export function affiliateService(db: Database, opts: { commissionPercent: number; portalUrl: (u: UserRow) => string | null }) {
  return {
    async stats(user: UserRow, origin: string) {
      const code = await ensureCode(db, user.id, 'referral_code');
      const [clicks] = (await db.query<{ n: number }>('select count(*)::int as n from affiliate_sessions where referral_id = $1', [code])) as [{ n: number }];
      const [signups] = (await db.query<{ n: number }>(`select count(*)::int as n from users where attribution->>'referralID' = $1`, [code])) as [{ n: number }];
      const paid = await db.query<{ users: number; currency: string; total: number }>(
        `select count(distinct p.user_id)::int as users, p.currency, sum(p.amount_minor)::int as total
         from payments p join users u on u.id = p.user_id
         where u.attribution->>'referralID' = $1 and p.status = 'succeeded' and p.amount_minor > 0 group by p.currency`,
        [code],
      );
      const [paying] = (await db.query<{ n: number }>(
        `select count(distinct p.user_id)::int as n from payments p join users u on u.id = p.user_id
         where u.attribution->>'referralID' = $1 and p.status = 'succeeded' and p.amount_minor > 0`,
        [code],
      )) as [{ n: number }];
      return {
        referralId: code,
        link: `${origin}/checkout?referralID=${code}`,
        clicks: clicks.n,
        signups: signups.n,
        payingReferrals: paying.n,
        commissionPercent: opts.commissionPercent,
        earnings: paid.map((p) => ({ currency: p.currency, amount: Math.floor((p.total * opts.commissionPercent) / 100) })),
        portalUrl: opts.portalUrl(user),
      };
    },
  };
}
export type AffiliateService = ReturnType<typeof affiliateService>;
