import { z } from 'zod';
import { isWgKey } from '@warren/contract';
import type { Queryable } from '../../db/client.js';
import { hashToken, randomToken } from '../../lib/secrets.js';
import { locationSeed } from '../servers/catalogue.js';

/**
 * Operator actions on locations and nodes, used by `npx warren vpn …` and by tests. Node tokens are
 * shown once and stored only as hashes.
 */
export const newLocation = locationSeed;
export type NewLocation = z.input<typeof newLocation>;

export const newNode = z.object({
  location: z.string().min(1),
  name: z.string().regex(/^[a-z0-9-]{2,60}$/, 'lower-case letters, digits and dashes'),
  endpointHost: z.string().min(1).max(253).regex(/^[A-Za-z0-9.:-]+$/, 'a host name or an IP address'),
  listenPort: z.number().int().min(1).max(65535).default(51820),
  publicKey: z.string().refine(isWgKey, 'a WireGuard public key (base64, 32 bytes)').optional(),
});
export type NewNode = z.input<typeof newNode>;

export const newNodeToken = () => `wn_${randomToken(32)}`;

export async function addLocation(db: Queryable, input: NewLocation): Promise<{ id: number }> {
  const l = newLocation.parse(input);
  const [row] = await db.query<{ id: number }>(
    `insert into vpn_locations (slug, country_code, country_en, country_ru, country_zh, city_en, city_ru, city_zh, latitude, longitude, premium, dash_visible)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) on conflict (slug) do nothing returning id`,
    [l.slug, l.countryCode, l.country.en, l.country.ru, l.country.zh, l.city.en, l.city.ru, l.city.zh, l.latitude, l.longitude, l.premium, l.dashVisible],
  );
  if (!row) throw new Error(`A location with the slug ${l.slug} exists already.`);
  return row;
}

export async function addNode(db: Queryable, input: NewNode): Promise<{ id: number; token: string }> {
  const n = newNode.parse(input);
  const [loc] = await db.query<{ id: number }>(`select id from vpn_locations where slug = $1`, [n.location]);
  if (!loc) throw new Error(`No location with the slug ${n.location}.`);
  const token = newNodeToken();
  const [row] = await db.query<{ id: number }>(
    `insert into vpn_nodes (location_id, name, token_hash, endpoint_host, listen_port, public_key) values ($1, $2, $3, $4, $5, $6)
     on conflict (name) do nothing returning id`,
    [loc.id, n.name, hashToken(token), n.endpointHost, n.listenPort, n.publicKey ?? null],
  );
  if (!row) throw new Error(`A node named ${n.name} exists already.`);
  return { id: row.id, token };
}

/** Issues a fresh token for a node (seeded nodes have none); the previous one stops working at once. */
export async function issueNodeToken(db: Queryable, name: string): Promise<string> {
  const token = newNodeToken();
  const rows = await db.query(`update vpn_nodes set token_hash = $2 where name = $1 returning id`, [name, hashToken(token)]);
  if (!rows.length) throw new Error(`No node named ${name}.`);
  return token;
}

export async function setLocation(db: Queryable, slug: string, patch: { premium?: boolean; dashVisible?: boolean }): Promise<void> {
  const rows = await db.query(
    `update vpn_locations set premium = coalesce($2, premium), dash_visible = coalesce($3, dash_visible), updated_at = now() where slug = $1 returning id`,
    [slug, patch.premium ?? null, patch.dashVisible ?? null],
  );
  if (!rows.length) throw new Error(`No location with the slug ${slug}.`);
}

export async function setNode(
  db: Queryable,
  name: string,
  patch: { enabled?: boolean; endpointHost?: string; listenPort?: number; publicKey?: string },
): Promise<void> {
  if (patch.publicKey !== undefined && !isWgKey(patch.publicKey)) throw new Error('The public key must be a WireGuard key (base64, 32 bytes).');
  const rows = await db.query(
    `update vpn_nodes set enabled = coalesce($2, enabled), endpoint_host = coalesce($3, endpoint_host), listen_port = coalesce($4, listen_port),
       public_key = coalesce($5, public_key) where name = $1 returning id`,
    [name, patch.enabled ?? null, patch.endpointHost ?? null, patch.listenPort ?? null, patch.publicKey ?? null],
  );
  if (!rows.length) throw new Error(`No node named ${name}.`);
}

export async function listNodes(db: Queryable) {
  return db.query<{ slug: string; city: string; premium: boolean; visible: boolean; node: string | null; endpoint: string | null; enabled: boolean | null; has_token: boolean; load: number | null; last_seen_at: Date | null }>(
    `select l.slug, l.city_en as city, l.premium, l.dash_visible as visible, n.name as node,
            n.endpoint_host || ':' || n.listen_port as endpoint, n.enabled, n.token_hash is not null as has_token, n.load, n.last_seen_at
     from vpn_locations l left join vpn_nodes n on n.location_id = l.id order by l.slug, n.name`,
  );
}
