import type { Queryable } from '../../db/client.js';

/** The features and user_features tables: the plan features and each user's switches. */
export function featuresRepository(db: Queryable) {
  return {
    /** Every feature in display order, with the user's switch (null when never set). */
    async listFor(userId: number): Promise<{ id: number; name: string; premium: boolean; enabled: boolean | null }[]> {
      return db.query<{ id: number; name: string; premium: boolean; enabled: boolean | null }>(
        `select f.id, f.name, f.premium, uf.enabled from features f
         left join user_features uf on uf.feature_id = f.id and uf.user_id = $1 order by f.sort, f.id`,
        [userId],
      );
    },

    async find(featureId: number): Promise<{ id: number; premium: boolean } | undefined> {
      const [f] = await db.query<{ id: number; premium: boolean }>('select id, premium from features where id = $1', [
        featureId,
      ]);
      return f;
    },

    async setState(userId: number, featureId: number, enabled: boolean): Promise<void> {
      await db.query(
        `insert into user_features (user_id, feature_id, enabled) values ($1, $2, $3)
         on conflict (user_id, feature_id) do update set enabled = excluded.enabled, updated_at = now()`,
        [userId, featureId, enabled],
      );
    },

    /** Whether the user switched the ad blocker on (the plan is checked by the caller). */
    async adblockEnabled(userId: number): Promise<boolean> {
      const [row] = await db.query<{ enabled: boolean }>(
        `select uf.enabled from user_features uf join features f on f.id = uf.feature_id where f.key = 'adblock' and uf.user_id = $1`,
        [userId],
      );
      return Boolean(row?.enabled);
    },
  };
}
export type FeaturesRepository = ReturnType<typeof featuresRepository>;

/** The account's part of an erasure: its feature switches. */
export async function eraseFeatureSwitches(tx: Queryable, account: { userId: number }): Promise<void> {
  await tx.query('delete from user_features where user_id = $1', [account.userId]);
}
