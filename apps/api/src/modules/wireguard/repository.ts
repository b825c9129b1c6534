import type { Queryable } from '../../db/client.js';

export interface DeviceRow {
  id: number;
  user_id: number;
  name: string;
  public_key: string;
  addr_index: number;
  created_at: Date | string;
  last_handshake_at: Date | string | null;
  rx_bytes: number;
  tx_bytes: number;
  /** The key's lifetime (issue 23, migration 0036): null is never; then key_expires_at is null too. */
  key_lifetime_days: number | null;
  key_expires_at: Date | string | null;
  /**
   * The node of the device's latest handshake, when it is being drained or switched off (issue 22):
   * its location's names and why; null otherwise (listOf only).
   */
  leaving?: {
    country_en: string;
    country_ru: string;
    country_zh: string;
    city_en: string;
    city_ru: string;
    city_zh: string;
    why: 'off' | 'retiring';
  } | null;
}

/**
 * Takes the smallest free address index inside the caller's transaction (migration 0018): a
 * released one from the free list (skip locked, so parallel adds take different ones), else the
 * high-water mark. Reads one row either way, whatever the number of devices; a rollback gives the
 * index back.
 */
const TAKE_RELEASED_INDEX = `delete from wg_free_addresses where addr_index =
  (select addr_index from wg_free_addresses order by addr_index limit 1 for update skip locked)
  returning addr_index as idx`;
const TAKE_NEW_INDEX = `update wg_address_high set next_index = next_index + 1 where id = 1 returning next_index - 1 as idx`;

/** A device row as a write returns it: without the counters (a new or rotated key has none yet). */
const FRESH_COLUMNS = `id, user_id, name, public_key, addr_index, created_at, key_lifetime_days, key_expires_at,
  null::timestamptz as last_handshake_at, 0::float8 as rx_bytes, 0::float8 as tx_bytes`;

/** A key due for its reminder mail (keyRemindersDue): the device and its owner's address, language and brand. */
export interface KeyReminderRow {
  id: number;
  user_id: number;
  name: string;
  public_key: string;
  key_lifetime_days: number;
  key_expires_at: Date | string;
  email: string;
  language: string;
  brand: string;
}

export function wireguardRepository(db: Queryable) {
  return {
    async listOf(userId: number): Promise<DeviceRow[]> {
      return db.query<DeviceRow>(
        `select d.id, d.user_id, d.name, d.public_key, d.addr_index, d.created_at, d.key_lifetime_days, d.key_expires_at,
                max(s.last_handshake_at) as last_handshake_at,
                coalesce(sum(s.rx_bytes), 0)::float8 as rx_bytes, coalesce(sum(s.tx_bytes), 0)::float8 as tx_bytes,
                (select case when n.enabled and n.draining_since is null then null
                             else json_build_object('country_en', l.country_en, 'country_ru', l.country_ru, 'country_zh', l.country_zh,
                                    'city_en', l.city_en, 'city_ru', l.city_ru, 'city_zh', l.city_zh, 'why', case when n.enabled then 'retiring' else 'off' end) end
                   from wg_peer_stats ls join vpn_nodes n on n.id = ls.node_id join vpn_locations l on l.id = n.location_id
                  where ls.device_id = d.id and ls.last_handshake_at is not null
                  order by ls.last_handshake_at desc limit 1) as leaving
         from wg_devices d left join wg_peer_stats s on s.device_id = d.id
         where d.user_id = $1 group by d.id order by d.id`,
        [userId],
      );
    },

    /** Serialises one user's device changes (limit check + insert) on their users row. */
    async lockUser(userId: number): Promise<void> {
      await db.query(`select id from users where id = $1 for update`, [userId]);
    },

    async countOf(userId: number): Promise<number> {
      const [row] = await db.query<{ n: number }>(`select count(*)::int as n from wg_devices where user_id = $1`, [
        userId,
      ]);
      return row!.n;
    },

    async keyTaken(publicKey: string): Promise<boolean> {
      return (await db.query(`select 1 from wg_devices where public_key = $1`, [publicKey])).length > 0;
    },

    /** Call inside the transaction that inserts the device (see TAKE_RELEASED_INDEX). */
    async takeFreeIndex(): Promise<number> {
      const [released] = await db.query<{ idx: number }>(TAKE_RELEASED_INDEX);
      if (released) return released.idx;
      const [fresh] = await db.query<{ idx: number }>(TAKE_NEW_INDEX);
      return fresh!.idx;
    },

    /**
     * Inserts with the given address index; undefined when a concurrent insert took that index first
     * (the unique index decides, so two devices can never share an address).
     */
    async insertAt(userId: number, name: string, publicKey: string, index: number): Promise<DeviceRow | undefined> {
      const [row] = await db.query<DeviceRow>(
        `insert into wg_devices (user_id, name, public_key, addr_index) values ($1, $2, $3, $4)
         on conflict (addr_index) do nothing
         returning ${FRESH_COLUMNS}`,
        [userId, name, publicKey, index],
      );
      return row;
    },

    async rename(userId: number, id: number, name: string): Promise<boolean> {
      return (
        (
          await db.query(`update wg_devices set name = $3 where id = $1 and user_id = $2 returning id`, [
            id,
            userId,
            name,
          ])
        ).length === 1
      );
    },

    /** One of the user's devices, locked for the caller's transaction (a rotation or a new lifetime); undefined for another's or none. */
    async lockDevice(userId: number, id: number): Promise<(DeviceRow & { expired: boolean }) | undefined> {
      const [row] = await db.query<DeviceRow & { expired: boolean }>(
        `select ${FRESH_COLUMNS}, coalesce(key_expires_at <= now(), false) as expired
         from wg_devices where id = $1 and user_id = $2 for update`,
        [id, userId],
      );
      return row;
    },

    /**
     * A new key for the device (issue 23): same name and addresses; a new lifetime of the same length
     * starts now, and the new key gets its own reminder. The trigger notes the change for the nodes.
     */
    async rotate(userId: number, id: number, publicKey: string): Promise<DeviceRow | undefined> {
      const [row] = await db.query<DeviceRow>(
        `update wg_devices set public_key = $3, key_reminded_at = null,
                key_expires_at = case when key_lifetime_days is null then null else now() + make_interval(days => key_lifetime_days) end
         where id = $1 and user_id = $2 returning ${FRESH_COLUMNS}`,
        [id, userId, publicKey],
      );
      return row;
    },

    /** The key's lifetime: null is never; days start a new lifetime now (and a new reminder). */
    async setLifetime(userId: number, id: number, days: number | null): Promise<DeviceRow | undefined> {
      const [row] = await db.query<DeviceRow>(
        `update wg_devices set key_lifetime_days = $3::int, key_reminded_at = null,
                key_expires_at = case when $3::int is null then null else now() + make_interval(days => $3::int) end
         where id = $1 and user_id = $2 returning ${FRESH_COLUMNS}`,
        [id, userId, days],
      );
      return row;
    },

    /**
     * Keys that expire in (asOf, asOf + withinMs], not reminded yet, of accounts that are neither
     * deleted nor disabled (an erased account has no devices). The reminder rule decides the moment.
     */
    async keyRemindersDue(asOf: Date, withinMs: number, limit: number): Promise<KeyReminderRow[]> {
      return db.query<KeyReminderRow>(
        `select d.id, d.user_id, d.name, d.public_key, d.key_lifetime_days, d.key_expires_at, u.email, u.language, u.brand
         from wg_devices d join users u on u.id = d.user_id
         where d.key_expires_at > $1::timestamptz and d.key_expires_at <= $1::timestamptz + make_interval(secs => $2::float8 / 1000)
           and d.key_reminded_at is null and u.deleted_at is null and u.account_status = 'Active'
         order by d.key_expires_at limit $3`,
        [asOf.toISOString(), withinMs, limit],
      );
    },

    /** Claims one key's reminder (once per key: the key must still be the device's); false when it was claimed or rotated. */
    async claimKeyReminder(id: number, publicKey: string): Promise<boolean> {
      return (
        (
          await db.query(
            `update wg_devices set key_reminded_at = now() where id = $1 and public_key = $2 and key_reminded_at is null returning id`,
            [id, publicKey],
          )
        ).length === 1
      );
    },

    /** Gives a claim back when its mail could not be sent, so the next pass tries again. */
    async releaseKeyReminder(id: number, publicKey: string): Promise<void> {
      await db.query(`update wg_devices set key_reminded_at = null where id = $1 and public_key = $2`, [id, publicKey]);
    },

    async remove(userId: number, id: number): Promise<boolean> {
      return (
        (await db.query(`delete from wg_devices where id = $1 and user_id = $2 returning id`, [id, userId])).length ===
        1
      );
    },
  };
}
export type WireguardRepository = ReturnType<typeof wireguardRepository>;

/** The account's part of an erasure: its devices (names, keys, addresses) go, and their counters with them; the nodes drop the peers on their next sync. */
export async function eraseWireguardData(tx: Queryable, account: { userId: number }): Promise<void> {
  await tx.query('delete from wg_devices where user_id = $1', [account.userId]);
}
