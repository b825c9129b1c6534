import {
  type DesiredState,
  type DesiredStateQuery,
  desiredState,
  type NodePeer,
  type NodeReport,
  mayUseLocation,
  vpnAccess,
  wgKeyExpired,
} from '@warren/contract';
import type { Database } from '../../db/client.js';
import { hashToken } from '../../lib/secrets.js';
import { peerAllowedIps } from '../wireguard/addresses.js';
import { serviceUsersFor } from '../openvpn-socks5/repository.js';
import { dnsBlockingFor } from '../ad-blocker/index.js';
import type { StealthNodeSide } from '../stealth/nodes.js';
import { type NodeRow, type PeerSourceRow, nodesRepository } from './repository.js';
import type { VpnConfig } from '../../config.js';
import type { ChangeWatcher } from './watcher.js';

/** Above this many changed accounts a full state is cheaper for both sides than a delta. */
const MAX_DELTA_OWNERS = 2000;
/** Devices read per query of a full state. */
const FULL_PAGE = 5000;
const PRUNE_EVERY_MS = 60 * 60_000;
/** How long a change that nodes must have first (new service credentials) waits for them at most. */
export const SYNC_WAIT_MS = 3000;
/** Acks recorded by other API instances are seen this often while someone waits; this instance's wake waiters at once. */
const ACK_POLL_MS = 200;

export interface NodesServiceDeps {
  db: Database;
  vpn: VpnConfig;
  watcher: ChangeWatcher;
  /** The stealth module's node side (stealth/nodes.ts): its users in the desired state, its status and bytes from reports. */
  stealth?: StealthNodeSide;
}

export function nodesService({ db, vpn, watcher, stealth }: NodesServiceDeps) {
  const repo = nodesRepository(db);
  let lastPrune = 0;
  const ackWaiters = new Set<() => void>();

  /** Until every enabled node that reported lately has applied `version`, at most `timeoutMs`; true when they all have. */
  async function synced(version: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if ((await repo.behind(version, vpn.nodeOnlineSeconds)) === 0) return true;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          ackWaiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(left, ACK_POLL_MS));
        ackWaiters.add(done);
      });
    }
  }

  async function compute(node: NodeRow, q: Pick<DesiredStateQuery, 'since' | 'at'>): Promise<DesiredState> {
    // Read the version first: a change that lands while we compute is then sent again next time, never lost.
    const head = await repo.head(node.id);
    const now = head.now_ms;
    let owners: number[] | null = null;
    const canDelta =
      q.since !== undefined && q.at !== undefined && q.since >= head.pruned && q.since <= head.version && q.at <= now;
    if (canDelta) {
      const changed = await repo.changedOwnersSince(q.since!);
      if (changed) {
        const expired = await repo.expiredBetween(q.at!, now);
        owners = [...new Set([...changed, ...expired])];
        if (owners.length > MAX_DELTA_OWNERS) owners = null;
      }
    }
    const full = owners === null;
    let peers: NodePeer[] = [];
    const toPeers = (rows: PeerSourceRow[]) =>
      rows
        .filter(
          (r) =>
            // A device whose key ran out (issue 23) is off every node until the browser rotates it.
            !wgKeyExpired(r.key_expires_ms, now) &&
            mayUseLocation(
              vpnAccess(
                {
                  accountStatus: r.account_status,
                  tariffKey: r.tariff_key,
                  subscriptionExpiresAt: r.subscription_expires_at,
                  deletedAt: r.deleted_at,
                },
                now,
              ),
              head.premium,
            ),
        )
        .map((r) => ({
          publicKey: r.public_key,
          allowedIps: peerAllowedIps(r.addr_index, vpn.pools),
          owner: r.user_id,
        }));
    if (head.enabled && !full && owners!.length) peers = toPeers(await repo.peerSources(owners));
    else if (head.enabled && full) {
      // A page at a time, letting other requests run between pages. Pages are not one snapshot: a
      // change committed meanwhile is after the version read above, so the next delta resends its owner.
      for (let after = 0; ;) {
        const page = await repo.peerSourcesPage(after, FULL_PAGE);
        for (const p of toPeers(page.rows)) peers.push(p);
        if (page.lastId === null || page.rows.length < FULL_PAGE) break;
        after = page.lastId;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    // OpenVPN/SOCKS5 users follow the same rule and the same delta (modules/openvpn-socks5).
    const serviceUsers =
      head.enabled && (full || owners!.length) ? await serviceUsersFor(db, owners, head.premium, now) : [];
    // Stealth (VLESS/Trojan) users too: a rotation, lapse, refund, disable or deletion is a delta for that owner.
    const stealthUsers =
      stealth && head.enabled && (full || owners!.length) ? await stealth.usersFor(owners, head.premium, now) : [];
    // The ad blocker's categories, the same delta: the node's resolver answers by them (issue 23).
    const dnsBlocking = head.enabled && (full || owners!.length) ? await dnsBlockingFor(db, owners, now) : [];
    return {
      node: { id: node.id, name: node.name },
      version: head.version,
      evaluatedAt: now,
      nextCheckAt: await repo.nextExpiry(now),
      full,
      changedOwners: full ? [] : owners!,
      peers,
      serviceUsers,
      stealthUsers,
      dnsBlocking,
    };
  }

  return {
    async authenticate(token: string): Promise<NodeRow | undefined> {
      if (!token.startsWith('wn_') || token.length > 200) return undefined;
      return repo.findByTokenHash(hashToken(token));
    },

    /**
     * The node's desired peers: the full set, or (with since/at) only the accounts that changed.
     * With wait > 0 and nothing new, holds the request until a change, an expiry or the timeout.
     */
    async desiredState(node: NodeRow, q: DesiredStateQuery): Promise<DesiredState> {
      // An agent asks for changes since the version it applied last: that is its acknowledgement.
      if (q.since !== undefined) {
        await repo.ack(node.id, q.since);
        for (const wake of [...ackWaiters]) wake();
      }
      if (q.wait > 0 && q.since !== undefined && q.at !== undefined) {
        const deadline = Date.now() + q.wait * 1000;
        // A change that commits between this read and the wait below still wakes it (watcher.mark()).
        const mark = watcher.mark();
        const version = await repo.version();
        if (version === q.since) {
          const next = await repo.nextExpiry(q.at);
          if (next === null || next > Date.now())
            await watcher.wait(q.since, Math.min(deadline, next ?? Infinity), mark);
        }
      }
      return compute(node, q);
    },

    synced,

    /** Nodes by state as this API sees them (the warren_nodes gauge). */
    states: () => repo.states(vpn.nodeOnlineSeconds, vpn.highWaterPercent),

    /**
     * After a change the nodes must have before a customer is shown it (new OpenVPN/SOCKS5
     * credentials): wakes the long polls now and waits until every enabled node that reported
     * lately has applied it, at most SYNC_WAIT_MS (a node that is down or failing does not hold
     * the customer longer). True when they all have.
     */
    async publish(): Promise<boolean> {
      watcher.poke();
      return synced(await repo.version(), SYNC_WAIT_MS);
    },

    async report(node: NodeRow, r: NodeReport): Promise<number> {
      await repo.saveReport(node.id, r);
      const accepted = await repo.saveStats(node.id, r.peers);
      await stealth?.report(node.id, r);
      if (Date.now() - lastPrune > PRUNE_EVERY_MS) {
        lastPrune = Date.now();
        await repo.prune();
      }
      return accepted;
    },
  };
}
export type NodesService = ReturnType<typeof nodesService>;

/**
 * A desired state as the route's JSON text, in pieces: the peers a batch at a time with a turn of
 * the event loop between batches, so a full state of 300,000 peers (tens of MB) never holds the
 * instance while it is serialised (issue 22). The fields besides the peers go through the
 * contract's schema (unknown keys dropped), each peer is written with its three fields only.
 */
export async function* desiredStateJson(state: DesiredState, batch = 2000): AsyncGenerator<string> {
  const { peers, ...rest } = state;
  const head = JSON.stringify({ data: { ...desiredStateRest.parse(rest), peers: [] } });
  // The text ends with `"peers":[]}}`: the peers go between the brackets.
  const cut = head.length - 3;
  yield head.slice(0, cut);
  for (let i = 0; i < peers.length; i += batch) {
    const part = peers
      .slice(i, i + batch)
      .map((p) => JSON.stringify({ publicKey: p.publicKey, allowedIps: p.allowedIps, owner: p.owner }));
    yield (i ? ',' : '') + part.join(',');
    await new Promise((resolve) => setImmediate(resolve));
  }
  yield head.slice(cut);
}
const desiredStateRest = desiredState.omit({ peers: true });
