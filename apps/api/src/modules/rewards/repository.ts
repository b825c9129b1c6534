import type { Queryable } from '../../db/client.js';

export interface RewardEntry {
  id: number;
  days: number;
  reason: 'invited-friend' | 'invited-by-friend';
  email: string | null;
  created_at: string;
}

/** The reward ledger (reward_entries): one pair of lines per rewarded payment. */
export function rewardsRepository(db: Queryable) {
  return {
    /** The member's lines, newest first, with the friend's email. */
    ledger: (userId: number) =>
      db.query<RewardEntry>(
        `select r.id, r.days, r.reason, f.email, r.created_at from reward_entries r left join users f on f.id = r.friend_user_id
         where r.user_id = $1 order by r.created_at desc, r.id desc`,
        [userId],
      ),
    /** Both friends' lines for one payment; false when that payment was rewarded already. */
    async recordPair(inviterId: number, friendId: number, paymentId: number, days: number): Promise<boolean> {
      const inserted = await db.query(
        `insert into reward_entries (user_id, friend_user_id, payment_id, days, reason) values
           ($1, $2, $3, $4, 'invited-friend'), ($2, $1, $3, $4, 'invited-by-friend')
         on conflict do nothing returning id`,
        [inviterId, friendId, paymentId, days],
      );
      return inserted.length === 2;
    },
  };
}

/**
 * The account's part of an erasure: its own ledger goes; the inviter keeps the days it earned, no
 * longer pointing at the deleted friend.
 */
export async function eraseRewardsData(tx: Queryable, account: { userId: number }): Promise<void> {
  await tx.query('delete from reward_entries where user_id = $1', [account.userId]);
  await tx.query('update reward_entries set friend_user_id = null where friend_user_id = $1', [account.userId]);
}
