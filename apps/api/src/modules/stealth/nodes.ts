import { type NodeReport, type NodeStealthUser, mayUseLocation, vpnAccess } from '@warren/contract';
import type { Queryable } from '../../db/client.js';
import type { StealthKeys } from './credentials.js';
import { stealthRepository } from './repository.js';

/**
 * The stealth module's part of the node API (nodes/service.ts calls it): the users a node's core
 * should hold, and what a node reports of its core.
 */
export function stealthNodeSide(db: Queryable, keys: StealthKeys) {
  const repo = stealthRepository(db);
  return {
    /**
     * The stealth users one node should hold: the accounts in `owners` (all when null) with
     * credentials, filtered by THE access rule (vpnAccess + mayUseLocation, as for WireGuard peers
     * and OpenVPN) AND a paid plan: stealth is a paid feature like SOCKS5, so a free plan, a lapse,
     * a refund that ends the plan, a disabled or deleted account drop the account from every node.
     * Rides the same change log and delta as peers: a rotation or a plan change is a delta for
     * that owner only.
     */
    async usersFor(owners: number[] | null, premium: boolean, now: number): Promise<NodeStealthUser[]> {
      const out: NodeStealthUser[] = [];
      for (const r of await repo.nodeSources(owners)) {
        const access = vpnAccess(
          {
            accountStatus: r.account_status,
            tariffKey: r.tariff_key,
            subscriptionExpiresAt: r.expires === null ? null : new Date(r.expires),
          },
          now,
        );
        if (access !== 'paid' || !mayUseLocation(access, premium)) continue;
        const { id, password } = await keys.derive(r.user_id, r.seed);
        out.push({ owner: r.user_id, id, password });
      }
      return out;
    },

    /** Keeps the core's status (absent: the node runs none now, so no link points at it) and adds the bytes. */
    async report(nodeId: number, r: Pick<NodeReport, 'stealth' | 'stealthTraffic'>): Promise<void> {
      if (r.stealth) await repo.saveStatus(nodeId, r.stealth);
      else await repo.clearStatus(nodeId);
      if (r.stealthTraffic?.length) await repo.addTraffic(nodeId, r.stealthTraffic);
    },

    nodeGauges: () => repo.nodeGauges(),
  };
}
export type StealthNodeSide = ReturnType<typeof stealthNodeSide>;
