import { z } from 'zod';
import { UNIX_SECONDS_MAX, dbBigint, dbInt } from './numbers.js';
import { wgPublicKey } from './wireguard.js';
import { nodeServiceUser } from './services.js';
import { nodeStealthStatus, nodeStealthTraffic, nodeStealthUser } from './stealth.js';

/**
 * The calls between the API and a node's agent (`/api/nodes/*`, bearer node token). One typed
 * schema for both processes: the API validates with it, the agent parses answers with it.
 */

export const NODE_PATHS = {
  desired: '/api/nodes/desired',
  report: '/api/nodes/report',
} as const;

/** Longest long poll the API holds, in seconds. */
export const NODE_MAX_WAIT_S = 55;
/** How often agents report counters and load. */
export const NODE_REPORT_INTERVAL_S = 30;

export const nodePeer = z.object({
  publicKey: z.string(),
  allowedIps: z.array(z.string()),
  /** Groups a user's peers so a delta can replace them together (an opaque account number). */
  owner: z.number().int(),
});
export type NodePeer = z.infer<typeof nodePeer>;

export const nodeDnsBlocking = z.object({
  owner: z.number().int(),
  /** AD_BLOCK_CATEGORIES names; a name an agent does not know is skipped (a newer API), never a refused answer. */
  categories: z
    .array(z.string().regex(/^[a-z0-9-]{1,32}$/))
    .min(1)
    .max(32),
});
export type NodeDnsBlocking = z.infer<typeof nodeDnsBlocking>;

export const desiredStateQuery = z.object({
  /** The version the agent holds; absent for a full state. */
  since: dbBigint({ coerce: true }).min(0).optional(),
  /** The evaluatedAt of that answer (ms): subscriptions that expired since then are re-checked. */
  at: dbBigint({ coerce: true }).min(0).optional(),
  /** Long poll: seconds to wait for a change when there is none yet. */
  wait: dbInt({ coerce: true }).min(0).max(NODE_MAX_WAIT_S).default(0),
});
export type DesiredStateQuery = z.infer<typeof desiredStateQuery>;

export const desiredState = z.object({
  node: z.object({ id: z.number().int(), name: z.string() }),
  version: z.number().int(),
  /** Server time (ms) the access rule was evaluated at; send it back as `at`. */
  evaluatedAt: z.number().int(),
  /** Earliest upcoming subscription expiry (ms), so a change by the clock is not missed. */
  nextCheckAt: z.number().int().nullable(),
  /** true: `peers` is the whole set. false: for every owner in changedOwners, `peers` holds its whole new set. */
  full: z.boolean(),
  changedOwners: z.array(z.number().int()),
  peers: z.array(nodePeer),
  /** OpenVPN/SOCKS5 users, by owner like peers (services.ts); absent from older APIs. */
  serviceUsers: z.array(nodeServiceUser).default([]),
  /** Stealth (VLESS/Trojan) users, by owner like peers (stealth.ts); absent from older APIs. */
  stealthUsers: z.array(nodeStealthUser).default([]),
  /**
   * The ad blocker's categories of each owner that has it on (issue 23), by owner like peers: the
   * node's resolver answers that owner's WireGuard peers (by tunnel source address) and its
   * OpenVPN/SOCKS5 sessions by them. An owner absent from a full state, or changed and absent from a
   * delta, blocks nothing. Absent from older APIs.
   */
  dnsBlocking: z.array(nodeDnsBlocking).default([]),
});
export type DesiredState = z.infer<typeof desiredState>;

export const MAX_REPORTED_PEERS = 100_000;

/**
 * Peers one WireGuard interface can hold (issue 22), from the implementations' sources:
 * wireguard-go `device.MaxPeers = 1 << 16` (NewPeer answers "too many peers", the UAPI set fails
 * with EINVAL and `wg syncconf`/`wg set` exit non-zero, or die of SIGPIPE while still writing); the
 * Linux module's `MAX_PEERS_PER_DEVICE = 1U << 20` (wg_peer_create answers ENOMEM).
 */
export const WG_MAX_PEERS = { userspace: 1 << 16, kernel: 1 << 20 } as const;
export const WG_KINDS = ['kernel', 'userspace'] as const;
export type WgKind = (typeof WG_KINDS)[number];

/**
 * A node's WireGuard capacity as its agent reports it: the implementation, the peers one interface
 * holds at most (the implementation's cap, or the operator's lower --max-peers), the peers on the
 * interface now, and the desired peers it refused for want of room (0 when everything fits).
 */
export const nodeWireguardCapacity = z.object({
  kind: z.enum(WG_KINDS),
  maxPeers: dbInt().min(1).max(WG_MAX_PEERS.kernel),
  /** On the interface: never more than an interface can hold. */
  peers: dbInt().min(0).max(WG_MAX_PEERS.kernel),
  refused: dbInt().min(0),
});
export type NodeWireguardCapacity = z.infer<typeof nodeWireguardCapacity>;

/** The default high-water mark: a node at this share of its cap takes no new device (VPN_NODE_HIGH_WATER_PERCENT). */
export const NODE_HIGH_WATER_PERCENT = 95;

/** The peers at which a node counts as full: its cap scaled by the high-water mark (at least 1). */
export function nodePeerLimit(maxPeers: number, highWaterPercent: number = NODE_HIGH_WATER_PERCENT): number {
  return Math.max(1, Math.floor((maxPeers * highWaterPercent) / 100));
}

/**
 * Whether a node takes no new device (issue 22): it refused peers already, or the peers it must
 * carry (on the interface + refused) reached its limit. A node that never said its capacity
 * (older agents, demo nodes) is not full. Pure: the API's SQL says the same (locations repository).
 */
export function nodeIsFull(
  c: Pick<NodeWireguardCapacity, 'maxPeers' | 'peers' | 'refused'> | null | undefined,
  highWaterPercent: number = NODE_HIGH_WATER_PERCENT,
): boolean {
  if (!c) return false;
  return c.refused > 0 || c.peers + c.refused >= nodePeerLimit(c.maxPeers, highWaterPercent);
}

/** At most this many extra WireGuard ports per node (setup refuses more). */
export const WG_EXTRA_PORTS_MAX = 8;

export const nodeReport = z.object({
  /** The interface's public key and port, so configs handed to users match the node. */
  publicKey: wgPublicKey.optional(),
  listenPort: dbInt().min(1).max(65535).optional(),
  /** 0–100. */
  load: z.number().min(0).max(100),
  activePeers: dbInt().min(0),
  /** The agent's version (optional: older agents do not send it). */
  agentVersion: z.string().max(64).optional(),
  /** The last error applying the desired state, null once an apply succeeded (optional: older agents do not send it). */
  lastApplyError: z.string().max(2000).nullable().optional(),
  /**
   * Public UDP ports besides listenPort that the node redirects to its WireGuard port (issue 23,
   * `warren-agent setup --wg-extra-ports`): only those whose redirect rule the agent found in place
   * (nftables chain inet warren wg-ports). Absent: the agent does not check (older agents, or no
   * extra ports configured); [] means none is in place.
   */
  wgExtraPorts: z.array(dbInt().min(1).max(65535)).max(WG_EXTRA_PORTS_MAX).optional(),
  /** The interface's capacity (issue 22; optional: older agents do not send it). */
  wireguard: nodeWireguardCapacity.optional(),
  /** Peers whose counters changed since the last report. No endpoints: client IPs are never sent. */
  peers: z
    .array(
      z.object({
        publicKey: z.string().max(64),
        /** Unix seconds; 0 = never. */
        lastHandshake: dbBigint().min(0).max(UNIX_SECONDS_MAX),
        rxBytes: dbBigint().min(0),
        txBytes: dbBigint().min(0),
      }),
    )
    .max(MAX_REPORTED_PEERS),
  /** The stealth core's state (absent: the node runs none, or an older agent). */
  stealth: nodeStealthStatus.optional(),
  /** Stealth customers whose byte counters moved since the last report. */
  stealthTraffic: z.array(nodeStealthTraffic).max(MAX_REPORTED_PEERS).optional(),
});
export type NodeReport = z.infer<typeof nodeReport>;
export const nodeReportResult = z.object({ accepted: z.number().int() });
