import { type VpnAccess, mayUseLocation } from '@warren/contract';

/** A shown location as the add path reads it (locations repository wireguardRoom). */
export interface LocationRoom {
  slug: string;
  premium: boolean;
  /** English names, for the API's own message (the web app says it in the customer's language). */
  city_en: string;
  country_en: string;
  /** It has a node a configuration may name (enabled, not draining, key known, real). */
  serving: boolean;
  /** One of those is below its WireGuard limit. */
  room: boolean;
}

export type RoomVerdict =
  { ok: true } | { ok: false; why: 'unknown-location' } | { ok: false; why: 'full'; place: string | null };

/**
 * Whether a new device may be added (issue 22), purely: the location it starts on must be one the
 * plan reaches, and not full (it serves, and every serving node is at its limit); without a
 * location, some location the plan reaches must have room when any is full. A location that serves
 * no one at all (switched off, retiring, no node yet) is not "full": that has its own message.
 */
export function roomVerdict(
  locations: readonly LocationRoom[],
  access: VpnAccess,
  location: string | undefined,
): RoomVerdict {
  const reach = locations.filter((l) => mayUseLocation(access, l.premium));
  const full = (l: LocationRoom) => l.serving && !l.room;
  if (location !== undefined) {
    const l = reach.find((x) => x.slug === location);
    if (!l) return { ok: false, why: 'unknown-location' };
    return full(l) ? { ok: false, why: 'full', place: `${l.city_en}, ${l.country_en}` } : { ok: true };
  }
  return reach.some(full) && !reach.some((l) => l.room) ? { ok: false, why: 'full', place: null } : { ok: true };
}
