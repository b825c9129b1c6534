import { type DesiredState, type DesiredStateQuery, type NodePeer, type NodeReport, mayUseLocation, vpnAccess } from '@warren/contract';
import type { Database } from '../../db/client.js';
import { hashToken } from '../../lib/secrets.js';
import { peerAllowedIps } from '../wireguard/addresses.js';
import { serviceUsersFor } from '../openvpn-socks5/repository.js';
import { type NodeRow, nodesRepository } from './repository.js';
import type { VpnConfig } from '../../config.js';
import type { ChangeWatcher } from './watcher.js';

/** Above this many changed accounts a full state is cheaper for both sides than a delta. */
const MAX_DELTA_OWNERS = 2000;
const PRUNE_EVERY_MS = 60 * 60_000;

export interface NodesServiceDeps {
  db: Database;
  vpn: VpnConfig;
  watcher: ChangeWatcher;
}

export function nodesService({ db, vpn, watcher }: NodesServiceDeps) {
  const repo = nodesRepository(db);
  let lastPrune = 0;

  async function compute(node: NodeRow, q: Pick<DesiredStateQuery, 'since' | 'at'>): Promise<DesiredState> {
    // Read the version first: a change that lands while we compute is then sent again next time, never lost.
    const head = await repo.head(node.id);
    const now = head.now_ms;
    let owners: number[] | null = null;
    const canDelta = q.since !== undefined && q.at !== undefined && q.since >= head.pruned && q.since <= head.version && q.at <= now;
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
    if (head.enabled && (full || owners!.length)) {
      const rows = await repo.peerSources(owners);
      peers = rows
        .filter((r) =>
          mayUseLocation(
            vpnAccess({ accountStatus: r.account_status, tariffKey: r.tariff_key, subscriptionExpiresAt: r.subscription_expires_at, deletedAt: r.deleted_at }, now),
            head.premium,
          ),
        )
        .map((r) => ({ publicKey: r.public_key, allowedIps: peerAllowedIps(r.addr_index, vpn.pools), owner: r.user_id }));
    }
    // OpenVPN/SOCKS5 users follow the same rule and the same delta (modules/openvpn-socks5).
    const serviceUsers = head.enabled && (full || owners!.length) ? await serviceUsersFor(db, owners, head.premium, now) : [];
    return {
      node: { id: node.id, name: node.name },
      version: head.version,
      evaluatedAt: now,
      nextCheckAt: await repo.nextExpiry(now),
      full,
      changedOwners: full ? [] : owners!,
      peers,
      serviceUsers,
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
      if (q.wait > 0 && q.since !== undefined && q.at !== undefined) {
        const deadline = Date.now() + q.wait * 1000;
        const version = await repo.version();
        if (version === q.since) {
          const next = await repo.nextExpiry(q.at);
          if (next === null || next > Date.now()) await watcher.wait(q.since, Math.min(deadline, next ?? Infinity));
        }
      }
      return compute(node, q);
    },

    async report(node: NodeRow, r: NodeReport): Promise<number> {
      await repo.saveReport(node.id, r);
      const accepted = await repo.saveStats(node.id, r.peers);
      if (Date.now() - lastPrune > PRUNE_EVERY_MS) {
        lastPrune = Date.now();
        await repo.prune();
      }
      return accepted;
    },
  };
}
export type NodesService = ReturnType<typeof nodesService>;
