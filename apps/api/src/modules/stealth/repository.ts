import type { NodeStealthStatus, NodeStealthTraffic } from '@warren/contract';
import type { Queryable } from '../../db/client.js';
import type { LocationNames, LocationRow } from '../locations/repository.js';

export interface StealthCredentialRow {
  user_id: number;
  seed: string;
}

/** An account found by its subscription secret, with what the answer needs. */
export interface SubscriberRow extends StealthCredentialRow {
  account_status: string;
  tariff_key: string;
  tariff_name: string;
  subscription_expires_at: Date | string | null;
  deleted_at: Date | string | null;
  brand: string;
  language: string;
}

export interface StealthNodeRow {
  host: string;
  port: number;
  wsPath: string;
  up: boolean;
  /** Reported within the online window (config.vpn.nodeOnlineSeconds). */
  online: boolean;
  load: number | null;
}

/** A location (the locations repository's row, its names and plan) with its stealth nodes. */
export interface StealthLocationRow extends Pick<LocationRow, 'slug' | LocationNames | 'premium'> {
  nodes: StealthNodeRow[];
}

export interface StealthNodeGaugeRow {
  node: string;
  host: string;
  port: number;
  up: boolean;
  version: string | null;
  users: number;
  cert_not_after_s: number | null;
}

export function stealthRepository(db: Queryable) {
  return {
    async credentials(userId: number): Promise<StealthCredentialRow | undefined> {
      const [row] = await db.query<StealthCredentialRow>(
        'select user_id, seed from stealth_credentials where user_id = $1',
        [userId],
      );
      return row;
    },

    /** The sealed stealth key (stealth/key.ts); undefined before the first start that made it. */
    async sealedKey(): Promise<string | undefined> {
      const [row] = await db.query<{ key_enc: string }>('select key_enc from stealth_key where id = 1');
      return row?.key_enc;
    },

    /** Stores the sealed key unless another instance stored one first (the one stored wins). */
    async saveKeyOnce(sealed: string): Promise<void> {
      await db.query('insert into stealth_key (id, key_enc) values (1, $1) on conflict (id) do nothing', [sealed]);
    },

    /** One account's credentials with its subscription hash: which key they were made under. */
    async anyCredentials(): Promise<(StealthCredentialRow & { sub_hash: string }) | undefined> {
      const [row] = await db.query<StealthCredentialRow & { sub_hash: string }>(
        'select user_id, seed, sub_hash from stealth_credentials order by user_id limit 1',
      );
      return row;
    },

    /** Inserts unless the account has credentials already (a parallel request won); the row in force. */
    async create(userId: number, seed: string, subHash: string): Promise<StealthCredentialRow> {
      await db.query(
        'insert into stealth_credentials (user_id, seed, sub_hash) values ($1, $2, $3) on conflict (user_id) do nothing',
        [userId, seed, subHash],
      );
      return (await this.credentials(userId))!;
    },

    async rotate(userId: number, seed: string, subHash: string): Promise<boolean> {
      const rows = await db.query(
        'update stealth_credentials set seed = $2, sub_hash = $3, updated_at = now() where user_id = $1 returning user_id',
        [userId, seed, subHash],
      );
      return rows.length > 0;
    },

    async bySubHash(subHash: string): Promise<SubscriberRow | undefined> {
      const [row] = await db.query<SubscriberRow>(
        `select c.user_id, c.seed, u.account_status, u.tariff_key, u.tariff_name, u.subscription_expires_at, u.deleted_at, u.brand, u.language
         from stealth_credentials c join users u on u.id = c.user_id where c.sub_hash = $1`,
        [subHash],
      );
      return row;
    },

    /** Upload (what the core received from the account) and download, summed over every node. */
    async usage(userId: number): Promise<{ rx: number; tx: number }> {
      const [row] = await db.query<{ rx: number; tx: number }>(
        'select coalesce(sum(rx_bytes), 0)::float8 as rx, coalesce(sum(tx_bytes), 0)::float8 as tx from stealth_traffic where user_id = $1',
        [userId],
      );
      return row!;
    },

    /**
     * Visible locations with at least one enabled, undrained node that reported a stealth core, with those
     * nodes. A node that never reported stealth (or stopped: its row is gone) makes no link.
     */
    async locations(onlineSeconds: number): Promise<StealthLocationRow[]> {
      const rows = await db.query<Omit<StealthLocationRow, 'nodes'> & { nodes: string }>(
        `select l.slug, l.country_en, l.country_ru, l.country_zh, l.city_en, l.city_ru, l.city_zh, l.premium,
           json_agg(json_build_object('host', s.host, 'port', s.port, 'wsPath', s.ws_path, 'up', s.up,
             'online', coalesce(n.last_seen_at > now() - make_interval(secs => $1), false), 'load', n.load) order by n.id)::text as nodes
         from vpn_locations l join vpn_nodes n on n.location_id = l.id and n.enabled and n.draining_since is null join stealth_node_status s on s.node_id = n.id
         where l.dash_visible
         group by l.id
         order by l.premium, l.country_en, l.city_en`,
        [onlineSeconds],
      );
      return rows.map((r) => ({ ...r, nodes: JSON.parse(r.nodes) as StealthNodeRow[] }));
    },

    /**
     * The accounts in `owners` (all when null) that have stealth credentials, with the fields the
     * access rule needs. The where clause only narrows the scan; the rule runs in the caller.
     */
    async nodeSources(
      owners: number[] | null,
    ): Promise<
      { user_id: number; seed: string; account_status: string; tariff_key: string; expires: number | null }[]
    > {
      const [row] = await db.query<{ j: string }>(
        `select coalesce(json_agg(json_build_array(c.user_id, c.seed, u.account_status, u.tariff_key, floor(extract(epoch from u.subscription_expires_at) * 1000)))::text, '[]') as j
         from stealth_credentials c join users u on u.id = c.user_id
         where u.deleted_at is null and u.account_status = 'Active' and u.tariff_key <> 'free-plan' and ($1::int[] is null or c.user_id = any($1::int[]))`,
        [owners],
      );
      return (JSON.parse(row!.j) as [number, string, string, string, number | null][]).map(
        ([user_id, seed, account_status, tariff_key, expires]) => ({
          user_id,
          seed,
          account_status,
          tariff_key,
          expires,
        }),
      );
    },

    async saveStatus(nodeId: number, s: NodeStealthStatus): Promise<void> {
      await db.query(
        `insert into stealth_node_status (node_id, host, port, ws_path, up, version, users, cert_not_after, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, case when $8::float8 is null then null else to_timestamp($8::float8 / 1000) end, now())
         on conflict (node_id) do update set host = excluded.host, port = excluded.port, ws_path = excluded.ws_path, up = excluded.up,
           version = excluded.version, users = excluded.users, cert_not_after = excluded.cert_not_after, updated_at = now()`,
        [nodeId, s.host, s.port, s.wsPath, s.up, s.version, s.users, s.certNotAfter],
      );
    },

    /** The node reported without a stealth core: its links go. */
    async clearStatus(nodeId: number): Promise<void> {
      await db.query('delete from stealth_node_status where node_id = $1', [nodeId]);
    },

    /** Adds the reported bytes to the accounts' counters on this node; owners that are no account are ignored. */
    async addTraffic(nodeId: number, traffic: NodeStealthTraffic[]): Promise<number> {
      if (!traffic.length) return 0;
      const rows = await db.query(
        `insert into stealth_traffic as s (user_id, node_id, rx_bytes, tx_bytes, updated_at)
         select u.id, $1, sum(r.rx), sum(r.tx), now()
         from unnest($2::int[], $3::int8[], $4::int8[]) as r(owner, rx, tx) join users u on u.id = r.owner
         group by u.id
         on conflict (user_id, node_id) do update set rx_bytes = s.rx_bytes + excluded.rx_bytes, tx_bytes = s.tx_bytes + excluded.tx_bytes, updated_at = now()
         returning s.user_id`,
        [nodeId, traffic.map((t) => t.owner), traffic.map((t) => t.rxBytes), traffic.map((t) => t.txBytes)],
      );
      return rows.length;
    },

    /** Per-node figures for the metrics and the console. */
    async nodeGauges(): Promise<StealthNodeGaugeRow[]> {
      return db.query<StealthNodeGaugeRow>(
        `select n.name as node, s.host, s.port, s.up, s.version, s.users, floor(extract(epoch from s.cert_not_after))::float8 as cert_not_after_s
         from stealth_node_status s join vpn_nodes n on n.id = s.node_id order by n.name`,
      );
    },
  };
}
export type StealthRepository = ReturnType<typeof stealthRepository>;

/** The account's part of an erasure: its stealth credentials (the subscription URL stops at once) and its byte counters. */
export async function eraseStealthData(tx: Queryable, account: { userId: number }): Promise<void> {
  await tx.query('delete from stealth_credentials where user_id = $1', [account.userId]);
  await tx.query('delete from stealth_traffic where user_id = $1', [account.userId]);
}
