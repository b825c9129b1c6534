import type { Database } from '../../db/client.js';
import { ensureCode } from '../affiliate/service.js';
import type { PaymentRow } from '../billing/repository.js';
import type { UserRow } from '../users/repository.js';



/** Masks an email for a ledger line: an***@example.com. */
export function maskEmail(email: string): string {
  const [name = '', domain = ''] = email.split('@');
  return `${name.slice(0, 2)}***@${domain}`;
}

/**
 * Invite friends: a friend who signs up with your friendID link and makes a first payment earns
 * both of you free days of the paid plan (REWARD_DAYS). Each payment rewards once (unique key).
 */
export function rewardsService(db: Database, opts: { daysPerFriend: number }) {
  async function addDays(userId: number, days: number) {
    // Free days stack on an active paid plan, or start one (the monthly plan's features) from now.
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
  }

  return {
    async summary(user: UserRow, origin: string) {
      const code = await ensureCode(db, user.id, 'friend_code');
      const ledger = await db.query<{ id: number; days: number; reason: 'invited-friend' | 'invited-by-friend'; email: string | null; created_at: string }>(
        `select r.id, r.days, r.reason, f.email, r.created_at from reward_entries r left join users f on f.id = r.friend_user_id
         where r.user_id = $1 order by r.created_at desc, r.id desc`,
        [user.id],
      );
      const [invited] = (await db.query<{ n: number }>(`select count(*)::int as n from users where attribution->>'friendID' = $1`, [code])) as [{ n: number }];
      return {
        friendId: code,
        // The checkout captures friendID on entry (spec section 3); the sign-up page does not.
        link: `${origin}/checkout?friendID=${code}`,
        daysPerFriend: opts.daysPerFriend,
        totalDays: ledger.reduce((s, e) => s + e.days, 0),
        invited: invited.n,
        ledger: ledger.map((e) => ({ id: Number(e.id), days: e.days, reason: e.reason, friend: e.email ? maskEmail(e.email) : '', createdAt: new Date(e.created_at).toISOString() })),
      };
    },

    /** Billing calls this after a payment is applied; only a friend's first real payment counts. */
    async onPaymentApplied(payment: PaymentRow, firstPayment: boolean): Promise<void> {
      if (!firstPayment || payment.amount_minor <= 0 || opts.daysPerFriend <= 0) return;
      const [friend] = await db.query<{ inviter: number | null }>(
        `select i.id as inviter from users u join users i on i.friend_code = u.attribution->>'friendID' and i.id <> u.id and i.deleted_at is null where u.id = $1`,
        [payment.user_id],
      );
      if (!friend?.inviter) return;
      const inserted = await db.query(
        `insert into reward_entries (user_id, friend_user_id, payment_id, days, reason) values
           ($1, $2, $3, $4, 'invited-friend'), ($2, $1, $3, $4, 'invited-by-friend')
         on conflict do nothing returning id`,
        [friend.inviter, payment.user_id, payment.id, opts.daysPerFriend],
      );
      if (inserted.length !== 2) return;
      await addDays(friend.inviter, opts.daysPerFriend);
      await addDays(payment.user_id, opts.daysPerFriend);
    },
  };
}
export type RewardsService = ReturnType<typeof rewardsService>;

