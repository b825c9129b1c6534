import { AD_BLOCK_DEFAULT, type AdBlockCategory, type NodeDnsBlocking, vpnAccess } from '@warren/contract';
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

    /** The ad blocker's switch and categories (null: never chose, the default). */
    async adblockSettings(userId: number): Promise<{ enabled: boolean; categories: AdBlockCategory[] | null }> {
      const [row] = await db.query<{ enabled: boolean; categories: AdBlockCategory[] | null }>(
        `select uf.enabled, uf.categories from user_features uf join features f on f.id = uf.feature_id
         where f.key = 'adblock' and uf.user_id = $1`,
        [userId],
      );
      return { enabled: Boolean(row?.enabled), categories: row?.categories ?? null };
    },

    /** Keeps the switch as it is (off when never set); the trigger makes it a VPN change for the nodes. */
    async setAdblockCategories(userId: number, categories: AdBlockCategory[]): Promise<void> {
      await db.query(
        `insert into user_features (user_id, feature_id, enabled, categories)
         select $1, f.id, false, $2::text[] from features f where f.key = 'adblock'
         on conflict (user_id, feature_id) do update set categories = excluded.categories, updated_at = now()`,
        [userId, categories],
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

/**
 * The ad blocker of the accounts in `owners` (all when null) for a node's desired state: those with
 * the switch on and a current paid plan (the blocker is premium), with their categories.
 */
export async function dnsBlockingFor(db: Queryable, owners: number[] | null, now: number): Promise<NodeDnsBlocking[]> {
  const rows = await db.query<{
    user_id: number;
    categories: string[] | null;
    account_status: string;
    tariff_key: string;
    expires: number | null;
  }>(
    `select uf.user_id, uf.categories, u.account_status, u.tariff_key,
            floor(extract(epoch from u.subscription_expires_at) * 1000)::float8 as expires
     from user_features uf
     join features f on f.id = uf.feature_id and f.key = 'adblock'
     join users u on u.id = uf.user_id
     where uf.enabled and u.deleted_at is null and ($1::int[] is null or uf.user_id = any($1::int[]))`,
    [owners],
  );
  return rows
    .filter(
      (r) =>
        vpnAccess(
          {
            accountStatus: r.account_status,
            tariffKey: r.tariff_key,
            subscriptionExpiresAt: r.expires === null ? null : new Date(r.expires),
          },
          now,
        ) === 'paid',
    )
    .map((r) => ({ owner: r.user_id, categories: r.categories ?? [...AD_BLOCK_DEFAULT] }));
}

/** The account's part of an erasure: its feature switches. */
export async function eraseFeatureSwitches(tx: Queryable, account: { userId: number }): Promise<void> {
  await tx.query('delete from user_features where user_id = $1', [account.userId]);
}
