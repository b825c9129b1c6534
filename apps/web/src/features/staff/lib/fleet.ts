import type { StaffLocation, StaffNode } from '@warren/contract';

/** What the console's nodes page says at its top (issue 22): the fleet at a glance, before any list. */
export interface FleetSummary {
  nodes: number;
  online: number;
  /** Reported once, silent for more than a couple of report intervals. */
  offline: number;
  neverReported: number;
  switchedOff: number;
  draining: number;
  /** Peers with a recent handshake, over the online nodes. */
  activePeers: number;
  /** Mean load of the online nodes that report one; null when none does. */
  averageLoad: number | null;
  busiest: { name: string; load: number } | null;
  /** Agent versions and how many nodes run each, most common first; "unknown" for nodes that never said. */
  versions: { version: string | null; nodes: number }[];
  /**
   * WireGuard capacity (issue 22): enabled nodes that take no new device (at the API's high-water
   * mark of their cap, or refusing peers), the desired peers refused fleet-wide, and the fullest
   * node (peers it must carry against its cap); null when no node reported a cap.
   */
  wireguardFull: number;
  refusedPeers: number;
  fullest: { name: string; percent: number } | null;
  /** Nodes whose last apply failed, with the error. */
  applyErrors: { name: string; location: string; error: string }[];
  locationsWithNodes: number;
  locationsWithoutNodes: number;
}

const nodesOf = (list: StaffLocation[]): StaffNode[] => list.flatMap((l) => l.nodes);

/** The summary of every node of every location (pure; the page renders it). Demo nodes count as nodes: they are what a development server serves. */
export function fleetSummary(list: StaffLocation[]): FleetSummary {
  const nodes = nodesOf(list);
  const online = nodes.filter((n) => n.enabled && n.online);
  const loads = online.map((n) => n.load).filter((l): l is number => l !== null);
  const busiest = online
    .filter((n) => n.load !== null)
    .sort((a, b) => b.load! - a.load! || a.name.localeCompare(b.name))[0];
  const capped = nodes.filter((n) => n.enabled && n.wireguard);
  const fill = (n: StaffNode) => (n.wireguard!.peers + n.wireguard!.refused) / n.wireguard!.maxPeers;
  const fullest = capped.sort((a, b) => fill(b) - fill(a) || a.name.localeCompare(b.name))[0];
  const versions = new Map<string | null, number>();
  for (const n of nodes) if (n.lastSeenAt) versions.set(n.agentVersion, (versions.get(n.agentVersion) ?? 0) + 1);
  return {
    nodes: nodes.length,
    online: online.length,
    offline: nodes.filter((n) => n.enabled && !n.online && n.lastSeenAt).length,
    neverReported: nodes.filter((n) => n.enabled && !n.lastSeenAt).length,
    switchedOff: nodes.filter((n) => !n.enabled).length,
    draining: nodes.filter((n) => n.enabled && n.drainingSince).length,
    activePeers: online.reduce((sum, n) => sum + n.activePeers, 0),
    averageLoad: loads.length ? Math.round(loads.reduce((a, b) => a + b, 0) / loads.length) : null,
    busiest: busiest ? { name: busiest.name, load: Math.round(busiest.load!) } : null,
    versions: [...versions.entries()]
      .map(([version, count]) => ({ version, nodes: count }))
      .sort((a, b) => b.nodes - a.nodes || String(a.version).localeCompare(String(b.version))),
    wireguardFull: nodes.filter((n) => n.enabled && n.wireguard?.full).length,
    refusedPeers: capped.reduce((sum, n) => sum + n.wireguard!.refused, 0),
    fullest: fullest ? { name: fullest.name, percent: Math.min(100, Math.round(fill(fullest) * 100)) } : null,
    applyErrors: nodes
      .filter((n) => n.lastApplyError)
      .map((n) => ({ name: n.name, location: n.location, error: n.lastApplyError! })),
    locationsWithNodes: list.filter((l) => l.nodes.length > 0).length,
    locationsWithoutNodes: list.filter((l) => l.nodes.length === 0).length,
  };
}

/** A node that needs someone: enabled and silent, failing to apply, draining, or full. */
export const needsAttention = (n: StaffNode) =>
  (n.enabled && !n.online) ||
  !!n.lastApplyError ||
  (n.enabled && !!n.drainingSince) ||
  (n.enabled && !!n.wireguard?.full);

/** Locations as the page lists them: those with nodes first as they came, the empty ones apart (one compact list, not a card each). */
export function splitLocations(list: StaffLocation[]): { withNodes: StaffLocation[]; empty: StaffLocation[] } {
  return { withNodes: list.filter((l) => l.nodes.length > 0), empty: list.filter((l) => l.nodes.length === 0) };
}
