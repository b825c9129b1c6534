import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DesiredState, NodeReport } from '@warren/contract';
import { describe, expect, it } from 'vitest';
import { Agent, type AgentApi, type AgentWg, backoffMs, loadPercent } from './agent.js';
import { type DesiredPeers, InvalidStateError, PeerState, nextDesired } from './state.js';
import { diffPeers } from './wg/diff.js';
import type { Dump } from './wg/dump.js';
import { REPORTED_KEY_FILE, readReportedKey } from './wg/reported-key.js';

const K = [
  'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=',
  'TrMvSoP4jYQlY6RIzBgbssQqY3vxI2Pi+y71lOWWXX0=',
  'gN65BkIKy1eCE9pP1wdc8ROUtkHLF2PfAqYdyYBz6EA=',
] as const;
const peer = (i: number, owner = i) => ({
  publicKey: K[i]!,
  allowedIps: [`10.64.0.${i + 2}/32`, `fd77:6172:7265::${i + 2}/128`],
  owner,
});
const answer = (a: Partial<DesiredState>): DesiredState => ({
  node: { id: 1, name: 'n' },
  version: 1,
  evaluatedAt: 1000,
  nextCheckAt: null,
  full: true,
  changedOwners: [],
  peers: [],
  serviceUsers: [],
  stealthUsers: [],
  dnsBlocking: [],
  ...a,
});

class FakeApi implements AgentApi {
  answers: (DesiredState | Error)[] = [];
  queries: { since?: number; at?: number; wait?: number }[] = [];
  reports: NodeReport[] = [];
  async desired(q: { since?: number; at?: number; wait?: number }) {
    this.queries.push(q);
    const a = this.answers.shift();
    if (!a) throw new Error('no answer scripted');
    if (a instanceof Error) throw a;
    return a;
  }
  async report(r: NodeReport) {
    this.reports.push(r);
    return r.peers.length;
  }
}

class FakeWg implements AgentWg {
  iface = 'wgt0';
  calls: string[][] = [];
  synced: string[][] = [];
  failNext = false;
  dumpValue: Dump = { iface: { publicKey: K[0], listenPort: 51820, fwmark: 'off' }, peers: [] };
  async dump() {
    return this.dumpValue;
  }
  async set(args: string[]) {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('wg set failed');
    }
    this.calls.push(args);
  }
  async syncconf(peers: DesiredPeers) {
    this.synced.push([...peers.keys()]);
  }
}

const options = { waitS: 25, reportIntervalS: 30, resyncIntervalS: 300, capacity: 100, maxSetChanges: 2 };

describe('desired state', () => {
  it('replaces everything on a full answer and only changed owners on a delta', () => {
    const s1 = nextDesired(null, answer({ peers: [peer(0), peer(1)] }));
    expect([...s1.keys()]).toEqual([K[0], K[1]]);
    const s2 = nextDesired(s1, answer({ full: false, changedOwners: [1, 2], peers: [peer(2)] }));
    expect([...s2.keys()].sort()).toEqual([K[0], K[2]].sort());
    expect([...s1.keys()]).toEqual([K[0], K[1]]); // pure: the old state is untouched
  });

  it('rejects a whole answer when one peer is malformed', () => {
    expect(() => nextDesired(null, answer({ peers: [peer(0), { ...peer(1), publicKey: 'nope' }] }))).toThrow(
      InvalidStateError,
    );
    expect(() =>
      nextDesired(null, answer({ peers: [{ ...peer(1), allowedIps: ['10.0.0.1/32\npeer x remove'] }] })),
    ).toThrow(InvalidStateError);
    expect(() => nextDesired(null, answer({ full: false, peers: [] }))).toThrow(/without a base/);
  });
});

describe('desired state applied in place (PeerState)', () => {
  // Keys for a random walk: 40 valid WireGuard keys (32 bytes, base64).
  const keys = Array.from({ length: 40 }, (_, i) => Buffer.alloc(32, i + 1).toString('base64'));
  const rnd = (() => {
    let x = 42;
    return (n: number) => ((x = (x * 1103515245 + 12345) % 2 ** 31), x % n);
  })();

  it('ends where nextDesired ends and answers the same diff, delta after delta', () => {
    let pure = nextDesired(
      null,
      answer({
        peers: keys.slice(0, 20).map((k, i) => ({ publicKey: k, allowedIps: [`10.64.0.${i + 2}/32`], owner: i % 7 })),
      }),
    );
    const state = new PeerState(new Map(pure));
    for (let round = 0; round < 300; round++) {
      const owners = Array.from({ length: 1 + rnd(3) }, () => rnd(9));
      // Peers of changed owners, sometimes a key moving from another owner, sometimes new addresses.
      const peers = Array.from({ length: rnd(4) }, () => ({
        publicKey: keys[rnd(keys.length)]!,
        allowedIps: [`10.64.${rnd(2)}.${2 + rnd(50)}/32`],
        owner: owners[rnd(owners.length)]!,
      }));
      const delta = answer({ full: false, changedOwners: owners, peers });
      const next = nextDesired(pure, delta);
      const expected = diffPeers(pure, next);
      const d = state.applyDelta(delta);
      expect(d).toEqual(expected);
      expect(new Map(state.peers)).toEqual(next);
      pure = next;
    }
  });

  it('changes nothing when a delta is malformed', () => {
    const state = new PeerState(nextDesired(null, answer({ peers: [peer(0), peer(1)] })));
    expect(() =>
      state.applyDelta(
        answer({ full: false, changedOwners: [0, 1], peers: [peer(2), { ...peer(1), publicKey: 'nope' }] }),
      ),
    ).toThrow(InvalidStateError);
    expect([...state.peers.keys()]).toEqual([K[0], K[1]]);
  });
});

describe('agent', () => {
  it('starts with one full syncconf, then applies deltas with wg set, long-polling from its version', async () => {
    const api = new FakeApi();
    const wg = new FakeWg();
    const agent = new Agent(api, wg, options);
    api.answers.push(answer({ version: 5, evaluatedAt: 50, peers: [peer(0)] }));
    expect(await agent.syncOnce()).toEqual({ mode: 'syncconf', changes: 1, version: 5 });
    expect(wg.synced[0]).toContain(K[0]);
    api.answers.push(answer({ version: 6, evaluatedAt: 60, full: false, changedOwners: [1], peers: [peer(1)] }));
    expect(await agent.syncOnce()).toEqual({ mode: 'set', changes: 1, version: 6 });
    expect(api.queries[1]).toEqual({ since: 5, at: 50, wait: 25 });
    expect(wg.calls[0]).toEqual(['set', 'wgt0', 'peer', K[1], 'allowed-ips', peer(1).allowedIps.join(',')]);
    api.answers.push(answer({ version: 7, evaluatedAt: 70, full: false, changedOwners: [0], peers: [] }));
    await agent.syncOnce();
    expect(wg.calls[1]).toEqual(['set', 'wgt0', 'peer', K[0], 'remove']);
    api.answers.push(answer({ version: 7, evaluatedAt: 80, full: false }));
    expect((await agent.syncOnce()).mode).toBe('none');
    expect(api.queries[3]).toEqual({ since: 7, at: 70, wait: 25 });
  });

  it('after a failed wg set, keeps its version and repairs with a full fetch and syncconf', async () => {
    const api = new FakeApi();
    const wg = new FakeWg();
    const agent = new Agent(api, wg, options);
    api.answers.push(answer({ version: 1, peers: [peer(0)] }));
    await agent.syncOnce();
    wg.failNext = true;
    api.answers.push(answer({ version: 2, full: false, changedOwners: [1], peers: [peer(1)] }));
    await expect(agent.syncOnce()).rejects.toThrow('wg set failed');
    expect(agent.state.version).toBe(1);
    api.answers.push(answer({ version: 2, peers: [peer(0), peer(1)] }));
    expect((await agent.syncOnce()).mode).toBe('syncconf');
    expect(api.queries[2]).toEqual({});
    expect(wg.synced[1]).toContain(K[1]);
  });

  it('applies nothing from an answer it cannot parse, and recovers when the API is back', async () => {
    const api = new FakeApi();
    const wg = new FakeWg();
    const agent = new Agent(api, wg, options);
    api.answers.push(answer({ version: 1, peers: [peer(0)] }));
    await agent.syncOnce();
    api.answers.push(
      answer({ version: 2, full: false, changedOwners: [0, 1], peers: [peer(1), { ...peer(2), publicKey: 'bad' }] }),
    );
    await expect(agent.syncOnce()).rejects.toThrow(InvalidStateError);
    api.answers.push(new Error('ECONNREFUSED'));
    await expect(agent.syncOnce()).rejects.toThrow('ECONNREFUSED');
    expect(wg.calls).toEqual([]);
    expect(agent.state).toMatchObject({ version: 1, peers: 1 });
    api.answers.push(answer({ version: 3, full: false, changedOwners: [0, 1], peers: [peer(1)] }));
    await agent.syncOnce();
    expect(wg.calls[0]).toEqual([
      'set',
      'wgt0',
      'peer',
      K[0],
      'remove',
      'peer',
      K[1],
      'allowed-ips',
      peer(1).allowedIps.join(','),
    ]);
  });

  it('uses syncconf for large deltas and for the periodic resync', async () => {
    let now = 0;
    const api = new FakeApi();
    const wg = new FakeWg();
    const agent = new Agent(
      api,
      wg,
      options,
      () => {},
      () => now,
    );
    api.answers.push(answer({ version: 1 }));
    await agent.syncOnce();
    api.answers.push(answer({ version: 2, full: false, changedOwners: [0, 1, 2], peers: [peer(0), peer(1), peer(2)] }));
    expect((await agent.syncOnce()).mode).toBe('syncconf');
    now = 301_000;
    api.answers.push(answer({ version: 2, peers: [peer(0), peer(1), peer(2)] }));
    await agent.syncOnce();
    expect(api.queries[2]).toEqual({});
    expect(wg.synced).toHaveLength(3);
  });

  it('reports only changed counters, never endpoints, with load and the interface key', async () => {
    const api = new FakeApi();
    const wg = new FakeWg();
    const now = 1_700_000_000_000;
    const agent = new Agent(
      api,
      wg,
      { ...options, capacity: 2 },
      () => {},
      () => now,
    );
    const p = (i: number, hs: number, rx: number) => ({
      publicKey: K[i]!,
      allowedIps: [],
      latestHandshake: hs,
      rxBytes: rx,
      txBytes: 1,
      persistentKeepalive: 0,
    });
    wg.dumpValue.peers = [p(0, now / 1000 - 10, 5), p(1, 0, 0), p(2, now / 1000 - 1000, 7)];
    await agent.reportOnce();
    expect(api.reports[0]).toMatchObject({ publicKey: K[0], listenPort: 51820, activePeers: 1 });
    expect(api.reports[0]!.load).toBeGreaterThanOrEqual(50); // 1 of 2 peers active, or the CPU if busier
    expect(api.reports[0]!.peers.map((x) => x.publicKey)).toEqual([K[0], K[2]]);
    wg.dumpValue.peers = [p(0, now / 1000 - 10, 6), p(1, 0, 0), p(2, now / 1000 - 1000, 7)];
    await agent.reportOnce();
    expect(api.reports[1]!.peers).toEqual([
      { publicKey: K[0], lastHandshake: now / 1000 - 10, rxBytes: 6, txBytes: 1 },
    ]);
  });

  it('reports its version and the last apply error, cleared once an apply succeeds (the operator console shows both)', async () => {
    const api = new FakeApi();
    const wg = new FakeWg();
    const agent = new Agent(api, wg, { ...options, version: '9.9.9' });
    await agent.reportOnce();
    expect(api.reports[0]).toMatchObject({ agentVersion: '9.9.9' });
    expect(api.reports[0]).not.toHaveProperty('lastApplyError'); // nothing applied yet: nothing to say
    api.answers.push(answer({ version: 1, peers: [peer(0)] }));
    await agent.syncOnce();
    api.answers.push(answer({ version: 2, full: false, changedOwners: [1], peers: [peer(1)] }));
    wg.failNext = true;
    await expect(agent.syncOnce()).rejects.toThrow('wg set failed');
    await agent.reportOnce();
    expect(api.reports[1]!.lastApplyError).toBe('wg set failed');
    api.answers.push(answer({ version: 2, peers: [peer(0), peer(1)] }));
    await agent.syncOnce();
    await agent.reportOnce();
    expect(api.reports[2]!.lastApplyError).toBeNull();
    // Without a version (an embedding that passes none) the field is left out.
    const bare = new Agent(api, wg, options);
    await bare.reportOnce();
    expect(api.reports[3]).not.toHaveProperty('agentVersion');
  });

  it('reports the extra WireGuard ports in place for the port the interface listens on; a failed check reports none (issue 23)', async () => {
    const api = new FakeApi();
    const wg = new FakeWg();
    const asked: number[] = [];
    let fail = false;
    const agent = new Agent(api, wg, {
      ...options,
      extraPorts: async (listenPort) => {
        asked.push(listenPort);
        if (fail) throw new Error('nft: Operation not permitted');
        return [53, 443];
      },
    });
    await agent.reportOnce();
    expect(asked).toEqual([51820]);
    expect(api.reports[0]!.wgExtraPorts).toEqual([53, 443]);
    fail = true;
    await agent.reportOnce();
    expect(api.reports[1]!.wgExtraPorts).toEqual([]);
    // Without a checker (an embedding that has none) the field is left out.
    await new Agent(api, wg, options).reportOnce();
    expect(api.reports[2]).not.toHaveProperty('wgExtraPorts');
  });

  it('keeps the public key the API accepted in its state dir, for setup (issue 22); a failed report keeps nothing', async () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-agent-key-'));
    try {
      const api = new FakeApi();
      const wg = new FakeWg();
      const agent = new Agent(api, wg, { ...options, stateDir });
      api.report = async () => {
        throw new Error('API down');
      };
      await expect(agent.reportOnce()).rejects.toThrow('API down');
      expect(readReportedKey(stateDir)).toBeUndefined();
      api.report = FakeApi.prototype.report;
      await agent.reportOnce();
      expect(readReportedKey(stateDir)).toBe(K[0]);
      expect(fs.statSync(path.join(stateDir, REPORTED_KEY_FILE)).mode & 0o777).toBe(0o600);
      wg.dumpValue = { ...wg.dumpValue, iface: { ...wg.dumpValue.iface, publicKey: K[1] } };
      await agent.reportOnce();
      expect(readReportedKey(stateDir)).toBe(K[1]);
    } finally {
      fs.rmSync(stateDir, { recursive: true, force: true });
    }
  });

  it('backs off exponentially with jitter up to 30 s', () => {
    expect(backoffMs(1, 1)).toBe(1000);
    expect(backoffMs(2, 1)).toBe(2000);
    expect(backoffMs(10, 1)).toBe(30_000);
    expect(backoffMs(10, 0)).toBe(15_000);
    expect(loadPercent(10, 100, 0.5, 2)).toBe(25);
    expect(loadPercent(500, 100, 0, 2)).toBe(100);
  });
});
