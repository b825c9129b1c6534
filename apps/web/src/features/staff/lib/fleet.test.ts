import type { StaffLocation, StaffNode } from '@warren/contract';
import { describe, expect, it } from 'vitest';
import { fleetSummary, needsAttention, splitLocations } from './fleet';

const node = (name: string, over: Partial<StaffNode> = {}): StaffNode => ({
  name,
  location: name.replace(/-\d+$/, ''),
  endpointHost: `${name}.example`,
  listenPort: 51820,
  enabled: true,
  demo: false,
  hasToken: true,
  lastSeenAt: '2026-11-28T00:00:00.000Z',
  online: true,
  activePeers: 0,
  load: null,
  drainingSince: null,
  agentVersion: '1.0.0',
  lastApplyError: null,
  wireguard: null,
  stealth: null,
  ...over,
});
const location = (slug: string, nodes: StaffNode[]): StaffLocation => ({
  slug,
  countryCode: 'DE',
  country: 'Germany',
  city: slug,
  premium: false,
  visible: true,
  enabled: nodes.some((n) => n.enabled),
  nodes,
});

describe('the fleet summary (issue 22)', () => {
  const list = [
    location('de-fra', [
      node('de-fra-1', { load: 20, activePeers: 30 }),
      node('de-fra-2', { load: 80, activePeers: 90, agentVersion: '1.1.0', drainingSince: '2026-11-27T00:00:00.000Z' }),
    ]),
    location('nl-ams', [
      node('nl-ams-1', { online: false, load: 99, activePeers: 5, lastApplyError: 'wg: device busy' }),
      node('nl-ams-2', { lastSeenAt: null, online: false, agentVersion: null }),
    ]),
    location('fr-par', [node('fr-par-1', { enabled: false, online: false, agentVersion: null })]),
    location('jp-tyo', []),
    location('us-nyc', []),
  ];

  it('counts nodes by state, peers and load over the online ones, versions, apply errors and empty locations', () => {
    expect(fleetSummary(list)).toEqual({
      nodes: 5,
      online: 2,
      offline: 1,
      neverReported: 1,
      switchedOff: 1,
      draining: 1,
      activePeers: 120,
      averageLoad: 50,
      busiest: { name: 'de-fra-2', load: 80 },
      versions: [
        { version: '1.0.0', nodes: 2 },
        { version: '1.1.0', nodes: 1 },
        { version: null, nodes: 1 },
      ],
      wireguardFull: 0,
      refusedPeers: 0,
      fullest: null,
      applyErrors: [{ name: 'nl-ams-1', location: 'nl-ams', error: 'wg: device busy' }],
      locationsWithNodes: 3,
      locationsWithoutNodes: 2,
    });
  });

  it('says how full WireGuard is: full nodes, refused peers, the fullest node (a switched-off one left out)', () => {
    const wg = (peers: number, refused: number, full: boolean, maxPeers = 65_536) => ({
      kind: 'userspace' as const,
      maxPeers,
      peers,
      refused,
      limit: Math.floor(maxPeers * 0.95),
      full,
    });
    const fleet = [
      location('de-fra', [
        node('de-fra-1', { wireguard: wg(30_000, 0, false) }),
        node('de-fra-2', { wireguard: wg(65_536, 1_200, true) }),
      ]),
      location('nl-ams', [
        node('nl-ams-1', { wireguard: { ...wg(200_000, 0, false, 1_048_576), kind: 'kernel' } }),
        node('nl-ams-2'),
      ]),
      location('fr-par', [node('fr-par-1', { enabled: false, wireguard: wg(10, 99_999, true, 10) })]),
    ];
    expect(fleetSummary(fleet)).toMatchObject({
      wireguardFull: 1,
      refusedPeers: 1_200,
      fullest: { name: 'de-fra-2', percent: 100 },
    });
    expect(
      fleet
        .flatMap((l) => l.nodes)
        .filter(needsAttention)
        .map((n) => n.name),
    ).toEqual(['de-fra-2']);
  });

  it('an empty fleet has no load and no busiest node', () => {
    expect(fleetSummary([location('jp-tyo', [])])).toMatchObject({
      nodes: 0,
      online: 0,
      averageLoad: null,
      busiest: null,
      versions: [],
      locationsWithoutNodes: 1,
    });
  });

  it('puts empty locations apart, and names the nodes that need someone', () => {
    const { withNodes, empty } = splitLocations(list);
    expect(withNodes.map((l) => l.slug)).toEqual(['de-fra', 'nl-ams', 'fr-par']);
    expect(empty.map((l) => l.slug)).toEqual(['jp-tyo', 'us-nyc']);
    expect(
      list
        .flatMap((l) => l.nodes)
        .filter(needsAttention)
        .map((n) => n.name),
    ).toEqual(['de-fra-2', 'nl-ams-1', 'nl-ams-2']);
  });
});
