import { z } from 'zod';
import { dbBigint, dbId, dbInt } from './numbers.js';

/**
 * Stealth protocols (issue 21): VLESS over WebSocket + TLS and Trojan over TLS, served on each
 * node by a V2Ray-family core (Debian's `v2ray`) that the agent drives. This file is the one
 * contract between the API (credentials, share links, subscription URL), the agent (the core's
 * users and counters) and the web app (the /setup/stealth page).
 */

export const STEALTH_PATHS = {
  /** Signed in: the account's subscription URL and share links. */
  get: '/api/setup/stealth/get',
  /** Signed in: new credentials and a new subscription URL; the old ones stop at once. */
  reset: '/api/setup/stealth/reset',
  /** Public, secret in the path: the subscription apps import (`?format=clash|singbox`). */
  subscriptionPrefix: '/api/sub/',
} as const;

/** The formats the subscription URL answers (`?format=`); base64 link list when absent. */
export const STEALTH_SUBSCRIPTION_FORMATS = ['base64', 'clash', 'singbox'] as const;
export type StealthSubscriptionFormat = (typeof STEALTH_SUBSCRIPTION_FORMATS)[number];

/** The core's default public port; the agent's `--stealth-port` changes it. */
export const STEALTH_DEFAULT_PORT = 443;

/** A VLESS id: a UUID. */
export const stealthUuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
/** A Trojan password: base64url, at least 128 bits. */
export const stealthPassword = z.string().regex(/^[A-Za-z0-9_-]{22,86}$/);

/**
 * One customer on a node's core, grouped by owner like peers and serviceUsers (a delta replaces
 * the owner's entry; an owner absent from a full state has no access). The core knows the user by
 * an email naming the owner (stealthEmail), so its per-user counters map back to the account and
 * to nothing else.
 */
export const nodeStealthUser = z.object({
  owner: dbId(),
  /** VLESS id. */
  id: stealthUuid,
  /** Trojan password. */
  password: stealthPassword,
});
export type NodeStealthUser = z.infer<typeof nodeStealthUser>;

/**
 * The core's email for an owner's credentials, and back; counters keyed by anything else are
 * ignored. `u<owner>.<tag>`: the tag (8 hex digits, the agent derives it from the credentials) gives
 * each generation of credentials counters of its own, so after a rotation the agent can tell the old
 * credentials' open connections from the new ones'. `u<owner>` alone is the older agents' form.
 */
export const stealthEmail = (owner: number, tag?: string): string => (tag ? `u${owner}.${tag}` : `u${owner}`);
export function ownerOfStealthEmail(email: string): number | null {
  const m = /^u([1-9][0-9]{0,9})(?:\.[0-9a-f]{8})?$/.exec(email);
  if (!m) return null;
  const n = Number(m[1]);
  return n <= 2_147_483_647 ? n : null;
}

/** What the agent reports of its stealth core, so the API writes links that match the node. */
export const nodeStealthStatus = z.object({
  /** The public host name the certificate is for (sni and host of the links). */
  host: z.string().min(1).max(253),
  /** The public TLS port (443 by default). */
  port: dbInt().min(1).max(65535),
  /** The WebSocket path VLESS is served on ("/" + random), also the CDN's path. */
  wsPath: z.string().regex(/^\/[A-Za-z0-9_-]{1,64}$/),
  /** The core answers (its API reachable). */
  up: z.boolean(),
  /** The core's version, e.g. "4.34.0". */
  version: z.string().max(64).nullable(),
  /** Customers loaded in the core. */
  users: dbInt().min(0),
  /** The certificate's notAfter (Unix ms), null when unreadable. */
  certNotAfter: dbBigint().min(0).nullable(),
});
export type NodeStealthStatus = z.infer<typeof nodeStealthStatus>;

/** Per-customer bytes since the last report, counted by the core: bytes only, never addresses. */
export const nodeStealthTraffic = z.object({
  owner: dbId(),
  rxBytes: dbBigint().min(0),
  txBytes: dbBigint().min(0),
});
export type NodeStealthTraffic = z.infer<typeof nodeStealthTraffic>;

/** GET /api/setup/stealth/get (and reset's answer). */
export const stealthLink = z.object({
  /** The location's slug. */
  location: z.string(),
  /** "Warren · Germany, Frankfurt" */
  name: z.string(),
  protocol: z.enum(['vless', 'trojan']),
  /** vless://… or trojan://… */
  url: z.string(),
});
export type StealthLink = z.infer<typeof stealthLink>;

export const stealthOverview = z.object({
  /** https://<brand host>/api/sub/<secret>; import it into the app (it refreshes itself). */
  subscriptionUrl: z.string(),
  links: z.array(stealthLink),
});
export type StealthOverview = z.infer<typeof stealthOverview>;
