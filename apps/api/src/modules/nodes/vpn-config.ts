import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../../config.js';
import { type Pools, parsePools } from '../devices/addresses.js';

/**
 * Settings of the VPN area, read from the environment once when the app is built (same rules as
 * config.ts: validated, fail fast with every bad variable listed).
 */
const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean);
const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');
const repoRoot = path.resolve(import.meta.dirname, '../../../../..');

const schema = z.object({
  WG_DEVICE_LIMIT_FREE: z.coerce.number().int().min(0).max(1000).default(1),
  WG_DEVICE_LIMIT_PAID: z.coerce.number().int().min(0).max(1000).default(10),
  WG_IPV4_POOL: z.string().default('10.64.0.0/10'),
  WG_IPV6_POOL: z.string().default('fd77:6172:7265::/48'),
  /** Resolvers pushed in configs; default: the node itself (each node runs a resolver on its tunnel address). */
  WG_DNS: z.string().optional(),
  WG_ALLOWED_IPS: z.string().default('0.0.0.0/0, ::/0'),
  /** A node that has not reported for this long counts as offline (no load shown, not preferred). */
  NODE_ONLINE_SECONDS: z.coerce.number().int().min(10).default(120),
  /** How often a waiting long poll re-reads the change log (changes made by other API instances). */
  VPN_CHANGE_POLL_MS: z.coerce.number().int().min(50).max(10_000).default(1000),
  VPN_SEED: bool.default(true),
  LOCATIONS_FILE: z.string().optional(),
  DOWNLOADS_FILE: z.string().optional(),
});

export interface VpnConfig {
  deviceLimit: { free: number; paid: number };
  pools: Pools;
  dns: string[];
  allowedIps: string[];
  nodeOnlineSeconds: number;
  changePollMs: number;
  seed: boolean;
  locationsFile: string;
  downloadsFile: string;
}

export function loadVpnConfig(source: NodeJS.ProcessEnv = process.env): VpnConfig {
  const parsed = schema.safeParse(Object.fromEntries(Object.entries(source).filter(([k, v]) => v !== '' && k in schema.shape)));
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  const e = parsed.data;
  let pools: Pools;
  try {
    pools = parsePools(e.WG_IPV4_POOL, e.WG_IPV6_POOL);
  } catch (err) {
    throw new ConfigError([`WG_IPV4_POOL/WG_IPV6_POOL: ${(err as Error).message}`]);
  }
  return {
    deviceLimit: { free: e.WG_DEVICE_LIMIT_FREE, paid: e.WG_DEVICE_LIMIT_PAID },
    pools,
    dns: e.WG_DNS ? list(e.WG_DNS) : [pools.v4.gateway, pools.v6.gateway],
    allowedIps: list(e.WG_ALLOWED_IPS),
    nodeOnlineSeconds: e.NODE_ONLINE_SECONDS,
    changePollMs: e.VPN_CHANGE_POLL_MS,
    seed: e.VPN_SEED,
    locationsFile: e.LOCATIONS_FILE ? path.resolve(e.LOCATIONS_FILE) : path.join(repoRoot, 'config/locations.json'),
    downloadsFile: e.DOWNLOADS_FILE ? path.resolve(e.DOWNLOADS_FILE) : path.join(repoRoot, 'config/downloads.json'),
  };
}
