import type { Position } from './country-positions.js';

export interface Candidate extends Position {
  slug: string;
  /** Whether the customer's plan reaches it and it has a node to connect to. */
  available: boolean;
  /** Average reported load of its online nodes, 0-100; null when no node is online. */
  load: number | null;
}

const EARTH_RADIUS_KM = 6371;
/** A full location counts as this much further away; the penalty grows with the fourth power of the load. */
export const FULL_LOAD_KM = 5000;

/** Great-circle distance in kilometres (haversine). */
export function distanceKm(a: Position, b: Position): number {
  const rad = (d: number) => (d * Math.PI) / 180;
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * How far a location effectively is: its distance plus a load penalty that stays small while the
 * location is comfortable (50 % load: +310 km) and grows steeply as it fills (80 %: +2050 km,
 * full or no node online: +5000 km). So a neighbour is preferred over a much farther location, but
 * not when the neighbour is nearly full.
 */
export function effectiveKm(customer: Position, c: Candidate): number {
  const load = Math.min(100, Math.max(0, c.load ?? 100)) / 100;
  return distanceKm(customer, c) + FULL_LOAD_KM * load ** 4;
}

/**
 * The location a new device should use: the available one with the smallest effective distance
 * from the customer (ties: the first slug in alphabetical order, so the answer is stable). Null
 * when nothing is available or the customer's position is unknown.
 */
export function recommendedLocation<C extends Candidate>(
  customer: Position | null,
  candidates: readonly C[],
): C | null {
  if (!customer) return null;
  let best: C | null = null;
  let bestKm = Infinity;
  for (const c of candidates) {
    if (!c.available) continue;
    const km = effectiveKm(customer, c);
    if (km < bestKm || (km === bestKm && best && c.slug < best.slug)) {
      best = c;
      bestKm = km;
    }
  }
  return best;
}
