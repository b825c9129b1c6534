import type { NodeWireguardCapacity } from '@warren/contract';
import type { Queryable } from '../../db/client.js';
import { nodeFullSql, placeholderKey } from '../locations/repository.js';

/** The channel the change log's writer (vpn_note_change, migration 0020) notifies, with its schema as the payload. */
export const VPN_CHANGES_CHANNEL = 'warren_vpn_changes';

export interface NodeRow {
  id: number;
  name: string;
  location_id: number;
  enabled: boolean;
  premium: boolean;
}

export interface PeerSourceRow {
  user_id: number;
  public_key: string;
  addr_index: number;
  account_status: string;
  tariff_key: string;
  subscription_expires_at: Date | string | null;
  deleted_at: Date | string | null;
  /** The device key's end (issue 23, ms); null: the key never expires. */
  key_expires_ms: number | null;
}

export function nodesRepository(db: Queryable) {
  return {
    /** Every node of a location on or off. */
    async setLocationEnabled(slug: string, enabled: boolean): Promise<void> {
      await db.query(
        `update vpn_nodes set enabled = $2 where location_id = (select id from vpn_locations where slug = $1) and enabled <> $2`,
        [slug, enabled],
      );
    },
    /** Gives every location without nodes one demo node (<slug>-1 at <slug>-1.<nodeDomain>, marked demo; outside production). Idempotent. */
    async seedDemoNodes(nodeDomain: string): Promise<void> {
      const bare = await db.query<{ id: number; slug: string }>(
        `select l.id, l.slug from vpn_locations l where not exists (select 1 from vpn_nodes n where n.location_id = l.id)`,
      );
      if (!bare.length) return;
      await db.query(
        `insert into vpn_nodes (location_id, name, endpoint_host, public_key, demo)
         select *, true from unnest($1::int[], $2::text[], $3::text[], $4::text[]) on conflict (name) do nothing`,
        [
          bare.map((b) => b.id),
          bare.map((b) => `${b.slug}-1`),
          bare.map((b) => `${b.slug}-1.${nodeDomain}`),
          bare.map(() => placeholderKey()),
        ],
      );
    },
    /** Inserts a node; undefined when the name is taken. */
    async add(n: {
      locationId: number;
      name: string;
      tokenHash: string;
      endpointHost: string;
      listenPort: number;
      publicKey: string | null;
    }): Promise<{ id: number } | undefined> {
      const [row] = await db.query<{ id: number }>(
        `insert into vpn_nodes (location_id, name, token_hash, endpoint_host, listen_port, public_key) values ($1, $2, $3, $4, $5, $6)
         on conflict (name) do nothing returning id`,
        [n.locationId, n.name, n.tokenHash, n.endpointHost, n.listenPort, n.publicKey],
      );
      return row;
    },

    /** False when there is no node of that name. */
    async setTokenHash(name: string, hash: string): Promise<boolean> {
      const rows = await db.query(`update vpn_nodes set token_hash = $2 where name = $1 returning id`, [name, hash]);
      return rows.length > 0;
    },

    /** False when there is no node of that name. */
    async update(
      name: string,
      patch: { enabled?: boolean; draining?: boolean; endpointHost?: string; listenPort?: number; publicKey?: string },
    ): Promise<boolean> {
      // Draining keeps the time it started (a second "drain" does not restart it); undraining clears it.
      const rows = await db.query(
        `update vpn_nodes set enabled = coalesce($2, enabled), endpoint_host = coalesce($3, endpoint_host), listen_port = coalesce($4, listen_port),
           public_key = coalesce($5, public_key),
           draining_since = case when $6::bool is null then draining_since when $6::bool then coalesce(draining_since, now()) end
         where name = $1 returning id`,
        [
          name,
          patch.enabled ?? null,
          patch.endpointHost ?? null,
          patch.listenPort ?? null,
          patch.publicKey ?? null,
          patch.draining ?? null,
        ],
      );
      return rows.length > 0;
    },

    /**
     * Nodes by state (metrics, issue 22): online = an enabled node reported within `onlineSeconds`;
     * full = an enabled node at its WireGuard high-water mark (`highWaterPercent` of its cap) or
     * refusing peers; demo nodes left out (they never report).
     */
    async states(
      onlineSeconds: number,
      highWaterPercent: number,
    ): Promise<{ online: number; offline: number; never: number; disabled: number; draining: number; full: number }> {
      const [row] = await db.query<{
        online: number;
        offline: number;
        never: number;
        disabled: number;
        draining: number;
        full: number;
      }>(
        `select count(*) filter (where enabled and last_seen_at > now() - make_interval(secs => $1))::int as online,
                count(*) filter (where enabled and last_seen_at <= now() - make_interval(secs => $1))::int as offline,
                count(*) filter (where enabled and last_seen_at is null)::int as never,
                count(*) filter (where not enabled)::int as disabled,
                count(*) filter (where enabled and draining_since is not null)::int as draining,
                count(*) filter (where enabled and ${nodeFullSql('vpn_nodes', '$2')})::int as full
         from vpn_nodes where not demo`,
        [onlineSeconds, highWaterPercent],
      );
      return row!;
    },

    async findByTokenHash(hash: string): Promise<NodeRow | undefined> {
      const [row] = await db.query<NodeRow>(
        `select n.id, n.name, n.location_id, n.enabled, l.premium from vpn_nodes n join vpn_locations l on l.id = n.location_id where n.token_hash = $1`,
        [hash],
      );
      return row;
    },

    /** The current version, the prune horizon, the database clock (ms) and the node's current premium flag, in one round trip. */
    async head(
      nodeId: number,
    ): Promise<{ version: number; pruned: number; now_ms: number; premium: boolean; enabled: boolean }> {
      const [row] = await db.query<{
        version: number;
        pruned: number;
        now_ms: number;
        premium: boolean;
        enabled: boolean;
      }>(
        `select (select coalesce(max(seq), 0) from vpn_changes)::float8 as version,
                (select pruned_through from vpn_meta where id = 1)::float8 as pruned,
                floor(extract(epoch from now()) * 1000)::float8 as now_ms, l.premium, n.enabled
         from vpn_nodes n join vpn_locations l on l.id = n.location_id where n.id = $1`,
        [nodeId],
      );
      return row!;
    },

    /** The node's OpenVPN and SOCKS5 ports. */
    async servicePorts(nodeId: number): Promise<{ udp: number; tcp: number; socks: number } | undefined> {
      const [row] = await db.query<{ udp: number; tcp: number; socks: number }>(
        'select openvpn_udp_port as udp, openvpn_tcp_port as tcp, socks_port as socks from vpn_nodes where id = $1',
        [nodeId],
      );
      return row;
    },

    /** The node has applied the changes through `version` (its long poll's `since`); never past the log's head, never backwards. */
    async ack(nodeId: number, version: number): Promise<void> {
      await db.query(
        `update vpn_nodes set synced_version = least($2::bigint, (select coalesce(max(seq), 0) from vpn_changes))
         where id = $1 and (synced_version is null or synced_version < $2::bigint)`,
        [nodeId, version],
      );
    },

    /** Enabled nodes that reported in the last `onlineSeconds` and have not applied `version` yet. */
    async behind(version: number, onlineSeconds: number): Promise<number> {
      const [row] = await db.query<{ n: number }>(
        `select count(*)::int as n from vpn_nodes
         where enabled and last_seen_at > now() - make_interval(secs => $2) and (synced_version is null or synced_version < $1::bigint)`,
        [version, onlineSeconds],
      );
      return row!.n;
    },

    /** The schema this database's tables live in: the change notifications of other schemas on the same server are not ours. */
    async schemaName(): Promise<string> {
      const [row] = await db.query<{ s: string }>('select current_schema() as s');
      return row!.s;
    },

    async version(): Promise<number> {
      const [row] = await db.query<{ v: number }>(`select coalesce(max(seq), 0)::float8 as v from vpn_changes`);
      return row!.v;
    },

    /** Owners touched by changes after `since`; null when one of them was a "resync everything" change. */
    async changedOwnersSince(since: number): Promise<number[] | null> {
      const rows = await db.query<{ user_id: number | null }>(
        `select distinct user_id from vpn_changes where seq > $1`,
        [since],
      );
      if (rows.some((r) => r.user_id === null)) return null;
      return rows.map((r) => r.user_id!);
    },

    /** Users whose paid time or a device key (issue 23) ran out in (fromMs, toMs]: their peers changed by the clock alone. */
    async expiredBetween(fromMs: number, toMs: number): Promise<number[]> {
      const rows = await db.query<{ id: number }>(
        `select id from users where subscription_expires_at > to_timestamp($1::float8 / 1000) and subscription_expires_at <= to_timestamp($2::float8 / 1000)
         union
         select user_id from wg_devices where key_expires_at > to_timestamp($1::float8 / 1000) and key_expires_at <= to_timestamp($2::float8 / 1000)`,
        [fromMs, toMs],
      );
      return rows.map((r) => r.id);
    },

    /**
     * Earliest paid expiry or device key expiry (issue 23) after `afterMs` (ms) among accounts that could have peers, rounded up:
     * expiries carry microseconds, and a long poll woken at the floored millisecond would evaluate
     * just before the expiry and send an empty delta (the account then changed one poll later).
     */
    async nextExpiry(afterMs: number): Promise<number | null> {
      const [row] = await db.query<{ t: number | null }>(
        `select ceil(extract(epoch from least(
           (select min(subscription_expires_at) from users
             where subscription_expires_at > to_timestamp($1::float8 / 1000) and deleted_at is null and account_status = 'Active' and tariff_key <> 'free-plan'),
           (select min(d.key_expires_at) from wg_devices d join users u on u.id = d.user_id
             where d.key_expires_at > to_timestamp($1::float8 / 1000) and u.deleted_at is null and u.account_status = 'Active'))) * 1000)::float8 as t`,
        [afterMs],
      );
      return row?.t ?? null;
    },

    /**
     * Devices with the subscription fields the access rule needs. The where clause only narrows the
     * scan (a deleted or inactive account never has access); the rule itself runs in vpnAccess().
     */
    async peerSources(owners: number[] | null): Promise<PeerSourceRow[]> {
      // One JSON value instead of 10k rows: row decoding dominates on PGlite (~3x faster this way).
      const [row] = await db.query<{ j: string }>(
        `select coalesce(json_agg(json_build_array(d.user_id, d.public_key, d.addr_index, u.account_status, u.tariff_key,
                  floor(extract(epoch from u.subscription_expires_at) * 1000), u.deleted_at is not null,
                  floor(extract(epoch from d.key_expires_at) * 1000)))::text, '[]') as j
         from wg_devices d join users u on u.id = d.user_id
         where u.deleted_at is null and u.account_status = 'Active' and ($1::int[] is null or d.user_id = any($1::int[]))`,
        [owners],
      );
      return (
        JSON.parse(row!.j) as [number, string, number, string, string, number | null, boolean, number | null][]
      ).map(([user_id, public_key, addr_index, account_status, tariff_key, expires, deleted, keyExpires]) => ({
        user_id,
        public_key,
        addr_index,
        account_status,
        tariff_key,
        subscription_expires_at: expires === null ? null : new Date(expires),
        deleted_at: deleted ? new Date(0) : null,
        key_expires_ms: keyExpires,
      }));
    },

    /**
     * One page of the full state's devices (id above `afterId`, in id order, at most `limit`), so
     * a full state of 300,000 peers is read and decoded a page at a time and the instance keeps
     * serving between pages (issue 22: one query and one JSON.parse held its event loop).
     */
    async peerSourcesPage(afterId: number, limit: number): Promise<{ rows: PeerSourceRow[]; lastId: number | null }> {
      const [row] = await db.query<{ j: string }>(
        `select coalesce(json_agg(json_build_array(s.user_id, s.public_key, s.addr_index, s.account_status, s.tariff_key, s.expires, s.deleted, s.id, s.key_expires) order by s.id)::text, '[]') as j
         from (select d.id, d.user_id, d.public_key, d.addr_index, u.account_status, u.tariff_key,
                 floor(extract(epoch from u.subscription_expires_at) * 1000) as expires, u.deleted_at is not null as deleted,
                 floor(extract(epoch from d.key_expires_at) * 1000) as key_expires
               from wg_devices d join users u on u.id = d.user_id
               where u.deleted_at is null and u.account_status = 'Active' and d.id > $1 order by d.id limit $2) s`,
        [afterId, limit],
      );
      const list = JSON.parse(row!.j) as [
        number,
        string,
        number,
        string,
        string,
        number | null,
        boolean,
        number,
        number | null,
      ][];
      return {
        rows: list.map(
          ([user_id, public_key, addr_index, account_status, tariff_key, expires, deleted, , keyExpires]) => ({
            user_id,
            public_key,
            addr_index,
            account_status,
            tariff_key,
            subscription_expires_at: expires === null ? null : new Date(expires),
            deleted_at: deleted ? new Date(0) : null,
            key_expires_ms: keyExpires,
          }),
        ),
        lastId: list.length ? list[list.length - 1]![7] : null,
      };
    },

    /**
     * agentVersion, lastApplyError and wireguard are optional (older agents): an absent one keeps what
     * was stored; lastApplyError null clears it.
     */
    async saveReport(
      nodeId: number,
      r: {
        load: number;
        activePeers: number;
        publicKey?: string;
        listenPort?: number;
        agentVersion?: string;
        lastApplyError?: string | null;
        wireguard?: NodeWireguardCapacity;
        /** Absent (an older agent): none offered, never a stale list kept. */
        wgExtraPorts?: number[];
      },
    ): Promise<void> {
      const wg = r.wireguard;
      await db.query(
        `update vpn_nodes set load = $2, active_peers = $3, last_seen_at = now(), demo = false, public_key = coalesce($4, public_key), listen_port = coalesce($5, listen_port),
           agent_version = coalesce($6, agent_version), last_apply_error = case when $7 then $8 else last_apply_error end,
           wg_kind = coalesce($9, wg_kind), wg_max_peers = coalesce($10, wg_max_peers), wg_peers = coalesce($11, wg_peers), wg_refused = coalesce($12, wg_refused),
           wg_extra_ports = $13::int[]
         where id = $1`,
        [
          nodeId,
          Math.round(r.load),
          r.activePeers,
          r.publicKey ?? null,
          r.listenPort ?? null,
          r.agentVersion ?? null,
          r.lastApplyError !== undefined,
          r.lastApplyError ?? null,
          wg?.kind ?? null,
          wg?.maxPeers ?? null,
          wg?.peers ?? null,
          wg?.refused ?? null,
          r.wgExtraPorts ? `{${[...new Set(r.wgExtraPorts)].sort((a, b) => a - b).join(',')}}` : null,
        ],
      );
    },

    /** Upserts counters for the reported peers that are devices; unknown keys are ignored. */
    async saveStats(
      nodeId: number,
      peers: { publicKey: string; lastHandshake: number; rxBytes: number; txBytes: number }[],
    ): Promise<number> {
      if (!peers.length) return 0;
      const rows = await db.query(
        `insert into wg_peer_stats as s (device_id, node_id, last_handshake_at, rx_bytes, tx_bytes, updated_at)
         select d.id, $1, case when r.hs > 0 then to_timestamp(r.hs) end, r.rx, r.tx, now()
         from unnest($2::text[], $3::float8[], $4::int8[], $5::int8[]) as r(pk, hs, rx, tx)
         join wg_devices d on d.public_key = r.pk
         on conflict (device_id, node_id) do update set last_handshake_at = coalesce(excluded.last_handshake_at, s.last_handshake_at),
           rx_bytes = excluded.rx_bytes, tx_bytes = excluded.tx_bytes, updated_at = now()
         returning s.device_id`,
        [
          nodeId,
          peers.map((p) => p.publicKey),
          peers.map((p) => p.lastHandshake),
          peers.map((p) => p.rxBytes),
          peers.map((p) => p.txBytes),
        ],
      );
      return rows.length;
    },

    /** Drops change-log rows older than a day; agents holding an older version get a full state. */
    async prune(): Promise<void> {
      await db.query(
        `with gone as (delete from vpn_changes where created_at < now() - interval '1 day' returning seq)
         update vpn_meta set pruned_through = greatest(pruned_through, coalesce((select max(seq) from gone), 0)) where id = 1`,
      );
    },
  };
}
export type NodesRepository = ReturnType<typeof nodesRepository>;
