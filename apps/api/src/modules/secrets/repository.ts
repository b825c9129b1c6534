import type { Database, Queryable } from '../../db/client.js';
import { SEAL } from '../../lib/keyring.js';

/**
 * Every column that holds a value sealed with the key ring (lib/keyring.ts), for the start-up check
 * and the reseal. The tables belong to their areas (users, openvpn-socks5); this list is only where
 * their sealed values are, so a new sealed column is one line here (test/secrets.test.ts fails on
 * a sealed column it does not know).
 */
export const SEALED_COLUMNS = [
  { table: 'users', key: 'id', column: 'totp_secret', purpose: SEAL.totp },
  { table: 'users', key: 'id', column: 'totp_pending_secret', purpose: SEAL.totp },
  { table: 'service_credentials', key: 'user_id', column: 'password_enc', purpose: SEAL.servicePassword },
  { table: 'openvpn_pki', key: 'id', column: 'ca_key_enc', purpose: SEAL.openvpnPki },
  { table: 'openvpn_pki', key: 'id', column: 'tls_crypt_enc', purpose: SEAL.openvpnPki },
  { table: 'openvpn_node_certs', key: 'node_id', column: 'key_enc', purpose: SEAL.openvpnPki },
  { table: 'stealth_key', key: 'id', column: 'key_enc', purpose: SEAL.stealthKey },
] as const;
export type SealedColumn = (typeof SEALED_COLUMNS)[number];

/** The key id a stored value names ('' for a value sealed before key ids: base64 has no colon). */
const KEY_ID = (c: string) => `case when position(':' in ${c}) > 0 then split_part(${c}, ':', 1) else '' end`;

export function secretsRepository(db: Database) {
  return {
    /** How many values of the column are under each key id ('' : no id yet). */
    async keyCounts(col: SealedColumn): Promise<Map<string, number>> {
      const rows = await db.query<{ key_id: string; n: number }>(
        `select ${KEY_ID(col.column)} as key_id, count(*)::int as n from ${col.table} where ${col.column} is not null group by 1`,
      );
      return new Map(rows.map((r) => [r.key_id, r.n]));
    },

    /**
     * A page of values not under `keyId` (with `legacyOnly`: only those without a key id), in key
     * order after `after`: a value that cannot be opened is passed over, never read again.
     */
    async page(
      col: SealedColumn,
      opts: { notUnder?: string; legacyOnly?: boolean; after: number; limit: number },
    ): Promise<{ key: number; value: string }[]> {
      return db.query<{ key: number; value: string }>(
        `select ${col.key} as key, ${col.column} as value from ${col.table}
          where ${col.column} is not null and ${col.key} > $1
            and ($2::text is null or ${KEY_ID(col.column)} <> $2) and (not $3::boolean or position(':' in ${col.column}) = 0)
          order by ${col.key} limit $4`,
        [opts.after, opts.notUnder ?? null, opts.legacyOnly ?? false, opts.limit],
      );
    },

    /**
     * Writes new sealed values, each only if the row still holds the value that was read (a user's
     * own change, or another reseal running at the same time, wins): how many were written. The
     * transaction is marked as a reseal, which the staff-session trigger reads (migration 0021).
     */
    async replace(col: SealedColumn, changes: { key: number; from: string; to: string }[]): Promise<number> {
      if (!changes.length) return 0;
      return db.transaction(async (tx: Queryable) => {
        await tx.query(`select set_config('warren.resealing', 'on', true)`);
        // Rows locked in key order first: two reseals running at once wait for each other instead of deadlocking.
        await tx.query(`select 1 from ${col.table} where ${col.key} = any($1::int[]) order by ${col.key} for update`, [
          changes.map((c) => c.key),
        ]);
        const rows = await tx.query(
          `update ${col.table} t set ${col.column} = c.to_value
             from unnest($1::int[], $2::text[], $3::text[]) as c(key, from_value, to_value)
            where t.${col.key} = c.key and t.${col.column} = c.from_value returning t.${col.key}`,
          [changes.map((c) => c.key), changes.map((c) => c.from), changes.map((c) => c.to)],
        );
        return rows.length;
      });
    },
  };
}
