import { z } from 'zod';
import { dbId } from './numbers.js';
import { FREE_TARIFF_KEY } from './constants.js';
import { languageFromTag } from './language.js';

/**
 * Setup area: server locations, app downloads and WireGuard devices (spec sections 2, 3, 7),
 * plus the two pure rules both sides share: who may use which location, and the config file.
 */

// --- access rule ------------------------------------------------------------------------

/** What an account may use: nothing, the free locations, or every location. */
export type VpnAccess = 'none' | 'free' | 'paid';

export interface AccessSubject {
  accountStatus: string;
  tariffKey: string;
  /** null: lifetime or free. */
  subscriptionExpiresAt: Date | string | null;
  deletedAt?: Date | string | null;
}

/**
 * THE access rule, used by the API for the server list, the device limit and every node's
 * desired peers. An account that is deleted or not Active has no access; a free plan reaches the
 * free locations; a paid plan reaches everything until it expires. An expired (or refunded and
 * expired) paid plan has no access until billing returns it to the free plan, so its peers leave
 * every node on the next sync.
 */
export function vpnAccess(u: AccessSubject, now: Date | number = Date.now()): VpnAccess {
  if (u.deletedAt) return 'none';
  if (u.accountStatus !== 'Active') return 'none';
  if (u.tariffKey === FREE_TARIFF_KEY) return 'free';
  if (u.subscriptionExpiresAt === null) return 'paid';
  const expires = new Date(u.subscriptionExpiresAt).getTime();
  return expires > new Date(now).getTime() ? 'paid' : 'none';
}

export function mayUseLocation(access: VpnAccess, premium: boolean): boolean {
  return access === 'paid' || (access === 'free' && !premium);
}

// --- server list ------------------------------------------------------------------------

/** `ru-RU`, `RU`, `ru` → ru; anything unknown → en (the contract's one tag rule). */
export const langCodeQuery = z.object({
  langCode: z
    .string()
    .max(10)
    .optional()
    .transform((code) => languageFromTag(code)),
});

/**
 * Why a location that customers know takes no one now: switched off by the operator, its servers
 * retiring, or (WireGuard only, issue 22) every server of it at its peer limit.
 */
export const LOCATION_UNAVAILABLE = ['off', 'retiring', 'full'] as const;
export const locationUnavailable = z.enum(LOCATION_UNAVAILABLE);
export type LocationUnavailable = z.infer<typeof locationUnavailable>;

export const serverListItem = z.object({
  id: z.number().int(),
  countryCode: z.string(),
  country: z.string(),
  city: z.string(),
  latitude: z.number(),
  longitude: z.number(),
  premium: z.boolean(),
  dashVisible: z.boolean(),
  /** Premium location shown to a free user: blurred, with a crown and an upgrade prompt. */
  isBlur: z.boolean(),
  /** Average load of the location's online nodes, 0–100; null when none reported lately. */
  load: z.number().int().min(0).max(100).nullable(),
  online: z.boolean(),
  /**
   * Why the location takes no one now (issue 22): `off`, switched off by the operator; `retiring`,
   * its servers are being retired (drained). null when it serves. Shown with the reason instead of
   * the location vanishing.
   */
  unavailable: locationUnavailable.nullable().optional(),
});
export type ServerListItem = z.infer<typeof serverListItem>;
export const serverListResult = z.object({ serverList: z.array(serverListItem) });

// --- downloads --------------------------------------------------------------------------

export const DOWNLOAD_PLATFORMS = ['windows', 'mac', 'ios', 'android', 'android-tv', 'linux'] as const;
export type DownloadPlatform = (typeof DOWNLOAD_PLATFORMS)[number];

/** Spec ids: 1 Windows, 2 Mac, 7 Android apk, 8 Android TV apk; we add 3 iOS and 4 Linux. */
export const downloadApp = z.object({
  id: z.number().int(),
  platform: z.enum(DOWNLOAD_PLATFORMS),
  name: z.string(),
  /** Style class derived from the id (spec section 3). */
  className: z.string(),
  version: z.string(),
  /** Bytes; 0 for store links. */
  size: z.number().int().min(0),
  /** Hex SHA-256 of the file; empty for store links. */
  sha256: z.string(),
  url: z.string(),
  kind: z.enum(['installer', 'apk', 'store', 'package']),
  minOs: z.string(),
  releasedAt: z.string(),
});
export type DownloadApp = z.infer<typeof downloadApp>;
export const downloadsResult = z.object({ items: z.array(downloadApp) });
export const operationSystem = z.object({
  id: z.number().int(),
  platform: z.enum(DOWNLOAD_PLATFORMS),
  name: z.string(),
  className: z.string(),
});
export const operationSystemsResult = z.object({ items: z.array(operationSystem) });

/** The platform a user agent runs on, so /setup shows its guide first. */
export function platformOf(userAgent: string): DownloadPlatform {
  const ua = userAgent.toLowerCase();
  if (/android/.test(ua)) return /\b(tv|aft[a-z]|bravia|smart-tv|googletv)\b/.test(ua) ? 'android-tv' : 'android';
  if (/iphone|ipad|ipod/.test(ua)) return 'ios';
  if (/windows/.test(ua)) return 'windows';
  if (/macintosh|mac os x/.test(ua)) return 'mac';
  if (/linux|x11|cros/.test(ua)) return 'linux';
  return 'windows';
}

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
});
export type WgDevice = z.infer<typeof wgDevice>;

/** A location as a setup page lists it, before its protocol-specific parts. */
export const setupLocation = z.object({
  id: z.number().int(),
  slug: z.string(),
  countryCode: z.string(),
  country: z.string(),
  city: z.string(),
  premium: z.boolean(),
  /** False when the plan does not reach it (premium for a free user): nothing to connect to then. */
  available: z.boolean(),
});

export const wgLocation = setupLocation.extend({
  endpoint: z.string().nullable(),
  publicKey: z.string().nullable(),
  /** Why a location customers knew takes no one now (see serverListItem.unavailable); null when it serves. */
  unavailable: locationUnavailable.nullable().optional(),
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

export const SETUP_PATHS = {
  servers: '/api/setup/servers/get',
  downloads: '/api/setup/downloads/get',
  operationSystems: '/api/dashboard/operationSystems',
  wg: '/api/setup/wg/get',
  wgAdd: '/api/setup/wg/devices/add',
  wgRename: '/api/setup/wg/devices/rename',
  wgRevoke: '/api/setup/wg/devices/revoke',
} as const;

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
