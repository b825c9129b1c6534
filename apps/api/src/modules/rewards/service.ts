import type { Database } from '../../db/client.js';
import { ensureCode } from '../affiliate/index.js';
import type { PaymentRow } from '../billing/index.js';
import { type UserRow, userReferralsRepository } from '../users/index.js';
import { rewardsRepository } from './repository.js';

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
  const users = userReferralsRepository(db);
  const ledgerOf = rewardsRepository(db);

  return {
    async summary(user: UserRow, origin: string) {
      const code = await ensureCode(db, user.id, 'friend_code');
      const ledger = await ledgerOf.ledger(user.id);
      return {
        friendId: code,
        // The checkout captures friendID on entry (spec section 3); the sign-up page does not.
        link: `${origin}/checkout?friendID=${code}`,
        daysPerFriend: opts.daysPerFriend,
        totalDays: ledger.reduce((s, e) => s + e.days, 0),
        invited: await users.countSignedUpWith('friendID', code),
        ledger: ledger.map((e) => ({
          id: Number(e.id),
          days: e.days,
          reason: e.reason,
          friend: e.email ? maskEmail(e.email) : '',
          createdAt: new Date(e.created_at).toISOString(),
        })),
      };
    },

    /**
     * Billing calls this after every applied payment (composition.ts); only a friend's first
     * purchase counts, so a support grant (zero amount, never a first purchase) earns nothing.
     */
    async onPaymentApplied(payment: PaymentRow, firstPurchase: boolean): Promise<void> {
      if (!firstPurchase || payment.amount_minor <= 0 || opts.daysPerFriend <= 0) return;
      const inviter = await users.inviterOf(payment.user_id);
      if (!inviter) return;
      if (!(await ledgerOf.recordPair(inviter, payment.user_id, payment.id, opts.daysPerFriend))) return;
      await users.addPlanDays(inviter, opts.daysPerFriend);
      await users.addPlanDays(payment.user_id, opts.daysPerFriend);
    },
  };
}
export type RewardsService = ReturnType<typeof rewardsService>;
