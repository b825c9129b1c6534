import { generateKeyPairSync } from 'node:crypto';
import { NODE_HIGH_WATER_PERCENT } from '@warren/contract';
import type { Queryable } from '../../db/client.js';
import type { LocationSeed } from './catalogue.js';

export interface LocationRow {
  id: number;
  slug: string;
  country_code: string;
  country_en: string;
  country_ru: string;
  country_zh: string;
  city_en: string;
  city_ru: string;
  city_zh: string;
  latitude: number;
  longitude: number;
  premium: boolean;
  dash_visible: boolean;
}

/** The country and city names of a location row, in each language. */
export type LocationNames = 'country_en' | 'country_ru' | 'country_zh' | 'city_en' | 'city_ru' | 'city_zh';

export interface LocationWithNodes extends LocationRow {
  /** Average load of online nodes; null when none is online. */
  load: number | null;
  online: boolean;
  /** The node WireGuard configs point at: online and least loaded first, with a known key, not full (issue 22). */
  best_node_host: string | null;
  best_node_port: number | null;
  best_node_key: string | null;
  /** Why it takes no one (issue 22): every node switched off, or every one left being drained; null when it serves. */
  unavailable: 'off' | 'retiring' | null;
  /**
   * Serves, but every node that would take a new WireGuard device is at its peer limit (issue 22):
   * WireGuard names none of them (best_node_* null) while OpenVPN and SOCKS5 still serve.
   */
  wg_full: boolean;
  /**
   * The extra WireGuard ports (issue 23) every node a configuration may name takes: enabled, not
   * draining, with a key, reported (or a demo node where those are offered), full or not, so the
   * offer does not flip with load. A node that reported none (an older agent) leaves none.
   */
  wg_extra_ports: number[];
}

/**
 * A node takes no new WireGuard device (issue 22): it refuses peers, or the peers it must carry
 * reached its cap at the high-water mark (`hw`, a parameter: percent). The contract's nodeIsFull()
 * and nodePeerLimit() say the same for the console; a node that never reported a cap is not full.
 */
export const nodeFullSql = (n: string, hw: string) =>
  `(${n}.wg_max_peers is not null and (${n}.wg_refused > 0 or ${n}.wg_peers::bigint + ${n}.wg_refused >= greatest(1, (${n}.wg_max_peers::bigint * ${hw}::int) / 100)))`;

const LOCATION_COLUMNS = `l.id, l.slug, l.country_code, l.country_en, l.country_ru, l.country_zh, l.city_en, l.city_ru, l.city_zh,
  l.latitude, l.longitude, l.premium, l.dash_visible`;

/** A public key for a seeded placeholder node (its private half is thrown away); the agent reports the real one. */
export function placeholderKey(): string {
  const { publicKey } = generateKeyPairSync('x25519');
  return publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
}

/**
 * `offerUnreported` (config.vpn.demoNodes, outside production): a location's enabled nodes are
 * offered before they have reported. Off (production): a location is offered to customers only
 * with an enabled node that has reported, and configs name only such nodes.
 */
export function locationsRepository(
  db: Queryable,
  {
    offerUnreported = false,
    highWaterPercent = NODE_HIGH_WATER_PERCENT,
  }: { offerUnreported?: boolean; highWaterPercent?: number } = {},
) {
  return {
    /** Inserts a location; undefined when the slug is taken. */
    async addLocation(l: {
      slug: string;
      countryCode: string;
      country: { en: string; ru: string; zh: string };
      city: { en: string; ru: string; zh: string };
      latitude: number;
      longitude: number;
      premium: boolean;
      dashVisible: boolean;
    }): Promise<{ id: number } | undefined> {
      const [row] = await db.query<{ id: number }>(
        `insert into vpn_locations (slug, country_code, country_en, country_ru, country_zh, city_en, city_ru, city_zh, latitude, longitude, premium, dash_visible)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) on conflict (slug) do nothing returning id`,
        [
          l.slug,
          l.countryCode,
          l.country.en,
          l.country.ru,
          l.country.zh,
          l.city.en,
          l.city.ru,
          l.city.zh,
          l.latitude,
          l.longitude,
          l.premium,
          l.dashVisible,
        ],
      );
      return row;
    },

    async locationIdBySlug(slug: string): Promise<number | undefined> {
      const [loc] = await db.query<{ id: number }>(`select id from vpn_locations where slug = $1`, [slug]);
      return loc?.id;
    },

    /** Changes premium and/or visibility; false when there is no such location. */
    async updateLocation(slug: string, patch: { premium?: boolean; dashVisible?: boolean }): Promise<boolean> {
      const rows = await db.query(
        `update vpn_locations set premium = coalesce($2, premium), dash_visible = coalesce($3, dash_visible), updated_at = now() where slug = $1 returning id`,
        [slug, patch.premium ?? null, patch.dashVisible ?? null],
      );
      return rows.length > 0;
    },

    /** Every location with each of its nodes (one row per node; a location without nodes once, node fields null), for the operator. */
    async operatorList() {
      return db.query<{
        slug: string;
        city: string;
        premium: boolean;
        visible: boolean;
        node: string | null;
        endpoint: string | null;
        enabled: boolean | null;
        demo: boolean | null;
        has_token: boolean;
        load: number | null;
        last_seen_at: Date | null;
        agent_version: string | null;
        draining_since: Date | null;
        wg_kind: string | null;
        wg_max_peers: number | null;
        wg_peers: number | null;
        wg_refused: number | null;
      }>(
        `select l.slug, l.city_en as city, l.premium, l.dash_visible as visible, n.name as node,
                n.endpoint_host || ':' || n.listen_port as endpoint, n.enabled, n.demo, n.token_hash is not null as has_token, n.load, n.last_seen_at, n.agent_version,
                n.draining_since, n.wg_kind, n.wg_max_peers, n.wg_peers, n.wg_refused
         from vpn_locations l left join vpn_nodes n on n.location_id = l.id order by l.slug, n.name`,
      );
    },

    /** Inserts missing locations (by slug). Idempotent; the demo nodes are the nodes repository's (`seedDemoNodes`). */
    async seed(seeds: LocationSeed[]): Promise<number> {
      if (!seeds.length) return 0;
      const rows = await db.query<{ id: number }>(
        `insert into vpn_locations (slug, country_code, country_en, country_ru, country_zh, city_en, city_ru, city_zh, latitude, longitude, premium, dash_visible)
         select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                              $9::float8[], $10::float8[], $11::bool[], $12::bool[])
         on conflict (slug) do nothing returning id`,
        [
          seeds.map((s) => s.slug),
          seeds.map((s) => s.countryCode),
          seeds.map((s) => s.country.en),
          seeds.map((s) => s.country.ru),
          seeds.map((s) => s.country.zh),
          seeds.map((s) => s.city.en),
          seeds.map((s) => s.city.ru),
          seeds.map((s) => s.city.zh),
          seeds.map((s) => s.latitude),
          seeds.map((s) => s.longitude),
          seeds.map((s) => s.premium),
          seeds.map((s) => s.dashVisible),
        ],
      );
      return rows.length;
    },

    /**
     * Whether WireGuard has room (issue 22), for a device being added: per shown location (only
     * `slug` when given) whether it has a node a configuration may name (`serving`) and one of them
     * below its limit (`room`). One grouped read of the nodes, nothing of what listWithNodes orders
     * by: the add path pays a few indexed rows, not the whole list.
     */
    async wireguardRoom(
      slug: string | null,
    ): Promise<
      { slug: string; premium: boolean; city_en: string; country_en: string; serving: boolean; room: boolean }[]
    > {
      return db.query(
        `select l.slug, l.premium, l.city_en, l.country_en, count(n.id) > 0 as serving, coalesce(bool_or(not ${nodeFullSql('n', '$3')}), false) as room
         from vpn_locations l
         left join vpn_nodes n on n.location_id = l.id and n.enabled and n.draining_since is null and n.public_key is not null and (n.last_seen_at is not null or $2::bool)
         where l.dash_visible and ($1::text is null or l.slug = $1)
         group by l.id`,
        [slug, offerUnreported, highWaterPercent],
      );
    },

    /**
     * Locations with the node a new configuration names (a draining node never, nor a full one for
     * WireGuard: issue 22). With
     * `onlyVisible`, the ones customers see: shown, with a node that is real (reported, or a demo
     * node outside production), also when every node is off or draining: then listed with why
     * (`unavailable`) instead of vanishing from the customer's list.
     */
    async listWithNodes(onlineSeconds: number, onlyVisible: boolean): Promise<LocationWithNodes[]> {
      return db.query<LocationWithNodes>(
        `select ${LOCATION_COLUMNS},
           (select round(avg(n.load))::int from vpn_nodes n
             where n.location_id = l.id and n.enabled and n.load is not null and n.last_seen_at > now() - make_interval(secs => $1)) as load,
           exists (select 1 from vpn_nodes n where n.location_id = l.id and n.enabled and n.last_seen_at > now() - make_interval(secs => $1)) as online,
           b.endpoint_host as best_node_host, b.listen_port as best_node_port, b.public_key as best_node_key,
           case when not exists (select 1 from vpn_nodes n where n.location_id = l.id and n.enabled and (n.last_seen_at is not null or $3::bool)) then 'off'
                when not exists (select 1 from vpn_nodes n where n.location_id = l.id and n.enabled and n.draining_since is null and (n.last_seen_at is not null or $3::bool)) then 'retiring'
           end as unavailable,
           (exists (select 1 from vpn_nodes n where n.location_id = l.id and n.enabled and n.draining_since is null and (n.last_seen_at is not null or $3::bool))
             and not exists (select 1 from vpn_nodes n where n.location_id = l.id and n.enabled and n.draining_since is null and (n.last_seen_at is not null or $3::bool)
                               and not ${nodeFullSql('n', '$4')})) as wg_full,
           coalesce((select array_to_json(array_agg(u.p order by u.p)) from (
               select distinct unnest(n.wg_extra_ports) as p from vpn_nodes n
               where n.location_id = l.id and n.enabled and n.draining_since is null and n.public_key is not null and (n.last_seen_at is not null or $3::bool)) u
             where not exists (select 1 from vpn_nodes m
               where m.location_id = l.id and m.enabled and m.draining_since is null and m.public_key is not null and (m.last_seen_at is not null or $3::bool)
                 and not (u.p = any(coalesce(m.wg_extra_ports, '{}'::int[]))))), '[]'::json) as wg_extra_ports
         from vpn_locations l
         left join lateral (
           select n.endpoint_host, n.listen_port, n.public_key from vpn_nodes n
           where n.location_id = l.id and n.enabled and n.draining_since is null and n.public_key is not null and (n.last_seen_at is not null or $3)
             and not ${nodeFullSql('n', '$4')}
           order by (n.last_seen_at > now() - make_interval(secs => $1)) desc nulls last, n.load asc nulls last, n.id
           limit 1
         ) b on true
         where ($2::bool = false or (l.dash_visible
           and exists (select 1 from vpn_nodes n where n.location_id = l.id and (n.last_seen_at is not null or $3::bool))))
         order by l.premium desc, l.country_en, l.city_en`,
        [onlineSeconds, onlyVisible, offerUnreported, highWaterPercent],
      );
    },
  };
}
export type LocationsRepository = ReturnType<typeof locationsRepository>;
