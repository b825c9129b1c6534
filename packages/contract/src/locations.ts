import { z } from 'zod';
import { FREE_TARIFF_KEY } from './constants.js';
import { languageFromTag } from './language.js';

/**
 * Server locations and app downloads (spec sections 2, 3), the setup pages' paths, and the access
 * rule both sides share: who may use which location. WireGuard's devices are in wireguard.ts.
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

// --- a location on a setup page ----------------------------------------------------------

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

export const SETUP_PATHS = {
  servers: '/api/setup/servers/get',
  downloads: '/api/setup/downloads/get',
  operationSystems: '/api/dashboard/operationSystems',
  wg: '/api/setup/wg/get',
  wgAdd: '/api/setup/wg/devices/add',
  wgRename: '/api/setup/wg/devices/rename',
  wgRevoke: '/api/setup/wg/devices/revoke',
  wgRotate: '/api/setup/wg/devices/rotate',
  wgLifetime: '/api/setup/wg/devices/lifetime',
} as const;
