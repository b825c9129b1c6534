import { z } from 'zod';
import { dbId } from './numbers.js';
import { locationUnavailable, setupLocation } from './locations.js';

/** WireGuard devices (spec section 7) and the config file the browser renders for one. */

// --- WireGuard ---------------------------------------------------------------------------

/** Canonical base64 of 32 bytes: 43 characters (the last one carrying 4 bits) and one `=`. */
const WG_KEY_RE = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;
export function isWgKey(s: string): boolean {
  return WG_KEY_RE.test(s) && s !== 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
}
export const wgPublicKey = z
  .string({ error: 'The public key is required.' })
  .trim()
  .refine(isWgKey, { error: 'The public key must be a WireGuard key (32 bytes, base64).' });

export const WG_DEVICE_NAME_MAX = 50;
export const wgDeviceName = z
  .string({ error: 'The name is required.' })
  .trim()
  .min(1, { error: 'The name is required.' })
  .max(WG_DEVICE_NAME_MAX, { error: `The name may not be longer than ${WG_DEVICE_NAME_MAX} characters.` })
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), { error: 'The name may not contain control characters.' });

export const wgDevice = z.object({
  id: z.number().int(),
  name: z.string(),
  publicKey: z.string(),
  ipv4: z.string(),
  ipv6: z.string(),
  createdAt: z.string(),
  /** Latest handshake on any node; null before the first one. */
  lastHandshakeAt: z.string().nullable(),
  /** Bytes received from / sent to the device, summed over nodes (the node's counters). */
  rxBytes: z.number().int(),
  txBytes: z.number().int(),
  /**
   * The server the device last connected through is being retired (drained) or was switched off
   * (issue 22): its configuration should be replaced by one for another server. The location's
   * name in the customer's language; null when its server is fine.
   */
  serverRetiring: z.object({ country: z.string(), city: z.string(), why: locationUnavailable }).nullable().optional(),
  /** The key's lifetime in days (issue 23; wireguard-keys.ts); null: the key never expires. */
  keyLifetimeDays: z.number().int().nullable().optional(),
  /** When the current key stops working (its peer leaves the nodes until a rotation); null: never. */
  keyExpiresAt: z.string().nullable().optional(),
});
export type WgDevice = z.infer<typeof wgDevice>;

export const wgLocation = setupLocation.extend({
  endpoint: z.string().nullable(),
  publicKey: z.string().nullable(),
  /** Why a location customers knew takes no one now (see serverListItem.unavailable); null when it serves. */
  unavailable: locationUnavailable.nullable().optional(),
  /**
   * The UDP ports a config for this location may name (issue 23, wireguard-ports.ts): the
   * endpoint's own first (the default), then the extra ports every server of the location takes.
   * Empty when not available; absent from older APIs (the endpoint's port alone).
   */
  ports: z.array(z.number().int()).optional(),
});
export type WgLocation = z.infer<typeof wgLocation>;

export const wgOverview = z.object({
  access: z.enum(['none', 'free', 'paid']),
  devices: z.array(wgDevice),
  limit: z.number().int(),
  dns: z.array(z.string()),
  allowedIps: z.array(z.string()),
  locations: z.array(wgLocation),
  /**
   * Slug of the location a new device should use: the nearest available one to the customer's
   * country (from the request's address), weighted by reported load; null when none is available.
   */
  recommended: z.string().nullable(),
});
export type WgOverview = z.infer<typeof wgOverview>;

/**
 * `location` (optional, a slug): the location the customer starts the device on. Its servers must
 * have room (issue 22): a location whose every server is at its peer limit answers 409 with a
 * `location` field error; without it, any location the plan reaches with room will do.
 */
export const addWgDeviceBody = z.object({
  name: wgDeviceName,
  publicKey: wgPublicKey,
  location: z
    .string()
    .regex(/^[a-z0-9-]{2,40}$/, { error: 'Unknown location.' })
    .optional(),
});
export const renameWgDeviceBody = z.object({ id: dbId(), name: wgDeviceName });
export const revokeWgDeviceBody = z.object({ id: dbId() });
export type AddWgDeviceBody = z.infer<typeof addWgDeviceBody>;

export interface WgConfigInput {
  privateKey: string;
  /** Device addresses, e.g. ['10.64.0.2', 'fd77:6172:7265::2']. */
  addresses: string[];
  dns: string[];
  serverPublicKey: string;
  endpoint: string;
  allowedIps?: string[];
  persistentKeepalive?: number;
  /** Shown as a comment at the top (location name). */
  title?: string;
}

/** One line of an INI value: no newlines or brackets can smuggle in another section. */
const clean = (s: string) => s.replace(/[\r\n[\]]/g, ' ').trim();

/** The client's wg-quick config file, built in the browser (the private key never leaves it). */
export function renderWgConfig(c: WgConfigInput): string {
  const hostPrefix = (a: string) => (a.includes('/') ? a : a.includes(':') ? `${a}/128` : `${a}/32`);
  const lines = [
    ...(c.title ? [`# ${clean(c.title)}`] : []),
    '[Interface]',
    `PrivateKey = ${clean(c.privateKey)}`,
    `Address = ${c.addresses.map((a) => hostPrefix(clean(a))).join(', ')}`,
    ...(c.dns.length ? [`DNS = ${c.dns.map(clean).join(', ')}`] : []),
    '',
    '[Peer]',
    `PublicKey = ${clean(c.serverPublicKey)}`,
    `AllowedIPs = ${(c.allowedIps ?? ['0.0.0.0/0', '::/0']).map(clean).join(', ')}`,
    `Endpoint = ${clean(c.endpoint)}`,
    `PersistentKeepalive = ${c.persistentKeepalive ?? 25}`,
    '',
  ];
  return lines.join('\n');
}

/** File name for a location's config: wg-quick takes the interface name from it (≤ 15 chars). */
export function wgConfigFileName(loc: { countryCode: string; slug: string }): string {
  const base = `wr-${loc.slug}`
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 15)
    .replace(/-+$/, '');
  return `${base}.conf`;
}
