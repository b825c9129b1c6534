import { z } from 'zod';
import { dbId } from './numbers.js';
import { wgPublicKey } from './wireguard.js';

/**
 * WireGuard keys with a lifetime (issue 23), like Mullvad's key rotation: per device "never" (the
 * default) or 1-30 days. The keys are made in the browser, so the server never rotates one: when a
 * key's time is up its peer leaves the nodes until the customer's browser makes a new key pair for
 * the same device (same name and addresses) and sends the new public key.
 */
export const WG_KEY_LIFETIME_MIN_DAYS = 1;
export const WG_KEY_LIFETIME_MAX_DAYS = 30;
/** The lifetimes the page offers (any whole number of days in 1-30 is accepted). */
export const WG_KEY_LIFETIME_CHOICES = [1, 3, 7, 14, 30] as const;

const DAY_MS = 86_400_000;
const ms = (d: Date | string | number) => (typeof d === 'number' ? d : new Date(d).getTime());

/** Expired once its expiry is reached (the same edge as a plan: expiring exactly now is expired); never without one. */
export function wgKeyExpired(expiresAt: Date | string | number | null | undefined, now: Date | number): boolean {
  return expiresAt !== null && expiresAt !== undefined && ms(expiresAt) <= ms(now);
}

/**
 * What the device list says of a key: 'never' (no lifetime), 'expired', or how long it has left in
 * whole days (rounded up, so "1 day" until the last moment) or, under a day, in hours (rounded up).
 */
export type WgKeyLeft =
  { state: 'never' } | { state: 'expired' } | { state: 'days'; count: number } | { state: 'hours'; count: number };
export function wgKeyLeft(expiresAt: Date | string | number | null | undefined, now: Date | number): WgKeyLeft {
  if (expiresAt === null || expiresAt === undefined) return { state: 'never' };
  const left = ms(expiresAt) - ms(now);
  if (left <= 0) return { state: 'expired' };
  if (left < DAY_MS) return { state: 'hours', count: Math.ceil(left / 3_600_000) };
  return { state: 'days', count: Math.ceil(left / DAY_MS) };
}

export const wgKeyLifetimeDays = z
  .number({ error: 'The key lifetime must be a number of days, or null for never.' })
  .int({ error: 'The key lifetime must be a whole number of days.' })
  .min(WG_KEY_LIFETIME_MIN_DAYS, {
    error: `The key lifetime must be ${WG_KEY_LIFETIME_MIN_DAYS} to ${WG_KEY_LIFETIME_MAX_DAYS} days.`,
  })
  .max(WG_KEY_LIFETIME_MAX_DAYS, {
    error: `The key lifetime must be ${WG_KEY_LIFETIME_MIN_DAYS} to ${WG_KEY_LIFETIME_MAX_DAYS} days.`,
  });

/** POST setup/wg/devices/lifetime: `days` null is "never"; a number starts a new lifetime now. */
export const setWgKeyLifetimeBody = z.object({
  id: dbId(),
  days: wgKeyLifetimeDays.nullable(),
});
export type SetWgKeyLifetimeBody = z.infer<typeof setWgKeyLifetimeBody>;

/**
 * POST setup/wg/devices/rotate: the device's new public key, and the key the browser saw it with
 * (`previousKey`): two rotations of one device at once, one wins and the other is told (409); the same
 * rotation sent again answers the device as it is (idempotent).
 */
export const rotateWgKeyBody = z
  .object({ id: dbId(), previousKey: wgPublicKey, publicKey: wgPublicKey })
  .refine((b) => b.publicKey !== b.previousKey, {
    path: ['publicKey'],
    error: 'The new key must differ from the old one.',
  });
export type RotateWgKeyBody = z.infer<typeof rotateWgKeyBody>;
