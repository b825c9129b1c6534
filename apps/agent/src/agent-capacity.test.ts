import type { DesiredState, NodeReport } from '@warren/contract';
import { describe, expect, it } from 'vitest';
import { Agent, type AgentApi, type AgentWg, type Log } from './agent.js';
import type { DesiredPeers } from './state.js';
import { PeerBudget, isPeerCapError } from './wg/capacity.js';
import type { Dump } from './wg/dump.js';

/**
 * A node with more desired peers than its interface holds (issue 22). wireguard-go holds 65,536
 * (`device.MaxPeers = 1 << 16`); these tests give the interface a cap of 3 (the agent's --max-peers,
 * or the fake interface's own hard limit) instead of creating 65,536 real peers: the rule is the
 * same, only the number differs.
 */
const key = (i: number) => Buffer.alloc(32, i + 1).toString('base64');
const peer = (i: number) => ({ publicKey: key(i), allowedIps: [`10.64.0.${i + 2}/32`], owner: i });
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
  answers: DesiredState[] = [];
  reports: NodeReport[] = [];
  desiredCalls = 0;
  async desired() {
    this.desiredCalls++;
    const a = this.answers.shift();
    if (!a) throw new Error('no answer scripted');
    return a;
  }
  async report(r: NodeReport) {
    this.reports.push(r);
    return 0;
  }
}

/**
 * An interface like wireguard-go's: it takes peers one by one and, at its hard limit, refuses the
 * next with "too many peers" (the peers before it stay), as its UAPI set does.
 */
class LimitedWg implements AgentWg {
  iface = 'wgcap0';
  held = new Map<string, string[]>();
  sets: string[][] = [];
  syncs = 0;
  failures = 0;
  constructor(
    private readonly hardLimit: number,
    private readonly announced?: number,
  ) {}
  async limits() {
    return { kind: 'userspace' as const, maxPeers: this.announced ?? this.hardLimit };
  }
  private add(k: string, ips: string[]) {
    if (!this.held.has(k) && this.held.size >= this.hardLimit) {
      this.failures++;
      throw new Error(
        'wg syncconf failed: Unable to modify interface: Invalid argument (failed to create new peer: too many peers)',
      );
    }
    this.held.set(k, ips);
  }
  async dump(): Promise<Dump> {
    return {
      iface: { publicKey: key(99), listenPort: 51820, fwmark: 'off' },
      peers: [...this.held.keys()].map((publicKey) => ({
        publicKey,
        allowedIps: [],
        latestHandshake: 0,
        rxBytes: 0,
        txBytes: 0,
        persistentKeepalive: 0,
      })),
    };
  }
  async set(args: string[]) {
    this.sets.push(args);
    for (let i = 2; i < args.length;) {
      const k = args[i + 1]!;
      if (args[i + 2] === 'remove') {
        this.held.delete(k);
        i += 3;
      } else {
        this.add(k, args[i + 3]!.split(','));
        i += 4;
      }
    }
  }
  async syncconf(peers: DesiredPeers) {
    this.syncs++;
    for (const k of [...this.held.keys()]) if (!peers.has(k)) this.held.delete(k);
    for (const [k, p] of peers) this.add(k, p.allowedIps);
  }
}

const options = { waitS: 25, reportIntervalS: 30, resyncIntervalS: 300, capacity: 100, maxSetChanges: 50 };
const logger = () => {
  const lines: { level: string; msg: string }[] = [];
  const log: Log = (level, msg) => void lines.push({ level, msg });
  return { lines, log };
};

describe('a node with more desired peers than its interface holds', () => {
  it('applies what fits, refuses the rest without an error, says so once, and reports its capacity', async () => {
    const api = new FakeApi();
    const wg = new LimitedWg(3);
    const { lines, log } = logger();
    const agent = new Agent(api, wg, options, log);
    api.answers.push(answer({ version: 1, peers: [0, 1, 2, 3, 4].map(peer) }));
    expect(await agent.syncOnce()).toMatchObject({ mode: 'syncconf' });
    expect([...wg.held.keys()]).toEqual([0, 1, 2].map(key)); // the oldest first
    expect(wg.failures).toBe(0);
    expect(agent.state).toMatchObject({ refused: 2, maxPeers: 3, failures: 0 });
    await agent.reportOnce();
    expect(api.reports[0]!.wireguard).toEqual({ kind: 'userspace', maxPeers: 3, peers: 3, refused: 2 });
    expect(api.reports[0]!.lastApplyError).toBeNull(); // a full interface is not an apply error

    // More devices arrive while it is full: nothing is sent to the interface, nothing fails, no second warning.
    api.answers.push(answer({ version: 2, full: false, changedOwners: [5], peers: [peer(5)] }));
    expect(await agent.syncOnce()).toEqual({ mode: 'none', changes: 0, version: 2 });
    // The periodic full state: the same three stay, still no failure.
    api.answers.push(answer({ version: 3, peers: [0, 1, 2, 3, 4, 5].map(peer) }));
    const fullAgain = await (async () => (
      ((agent as unknown as { needFull: boolean }).needFull = true),
      agent.syncOnce()
    ))();
    expect(fullAgain.mode).toBe('syncconf');
    expect([...wg.held.keys()]).toEqual([0, 1, 2].map(key));
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    expect(lines.filter((l) => l.level === 'error')).toHaveLength(0);

    // A device is revoked: its place goes to the oldest refused one, in the same wg set.
    api.answers.push(answer({ version: 4, full: false, changedOwners: [1], peers: [] }));
    expect(await agent.syncOnce()).toMatchObject({ mode: 'set', changes: 2 });
    expect(wg.sets.at(-1)).toEqual([
      'set',
      'wgcap0',
      'peer',
      key(1),
      'remove',
      'peer',
      key(3),
      'allowed-ips',
      '10.64.0.5/32',
    ]);
    expect(agent.state.refused).toBe(2); // 4 and 5 wait
    await agent.reportOnce();
    expect(api.reports[1]!.wireguard).toEqual({ kind: 'userspace', maxPeers: 3, peers: 3, refused: 2 });

    // Enough revoked that all fit again: said once, and the budget is gone.
    api.answers.push(answer({ version: 5, full: false, changedOwners: [0, 2], peers: [] }));
    await agent.syncOnce();
    expect(new Set(wg.held.keys())).toEqual(new Set([3, 4, 5].map(key)));
    expect(agent.state.refused).toBe(0);
    expect(lines.filter((l) => l.msg.startsWith('every desired peer fits'))).toHaveLength(1);
    expect(wg.failures).toBe(0);
  });

  it('keeps the peers an interface already holds when it starts over the cap (nobody connected is pushed off)', async () => {
    const api = new FakeApi();
    const wg = new LimitedWg(3);
    wg.held.set(key(4), ['10.64.0.6/32']); // on the interface from before a restart
    const agent = new Agent(api, wg, options);
    api.answers.push(answer({ version: 1, peers: [0, 1, 2, 3, 4].map(peer) }));
    await agent.syncOnce();
    expect(new Set(wg.held.keys())).toEqual(new Set([4, 0, 1].map(key)));
  });

  it('learns a cap the interface enforces below the one it announced: one failure, then no loop', async () => {
    const api = new FakeApi();
    const wg = new LimitedWg(3, 65_536); // announces wireguard-go's cap, holds 3 (stands for a cap it could not know)
    const { lines, log } = logger();
    const agent = new Agent(api, wg, options, log);
    const all = [0, 1, 2, 3, 4].map(peer);
    api.answers.push(answer({ version: 1, peers: all }));
    await expect(agent.syncOnce()).rejects.toThrow(/too many peers/);
    expect(lines.filter((l) => l.level === 'error')).toHaveLength(1);
    for (let v = 2; v < 6; v++) api.answers.push(answer({ version: v, peers: all }));
    for (let round = 0; round < 4; round++) {
      (agent as unknown as { needFull: boolean }).needFull = true;
      await agent.syncOnce(); // no throw: fitted to the 3 it took
    }
    expect(wg.failures).toBe(1);
    expect(wg.syncs).toBe(5);
    expect(agent.state).toMatchObject({ refused: 2, maxPeers: 3 });
    await agent.reportOnce();
    expect(api.reports[0]).toMatchObject({
      wireguard: { kind: 'userspace', maxPeers: 3, peers: 3, refused: 2 },
      lastApplyError: null,
    });
  });

  it("the operator's --max-peers below the implementation's cap holds", async () => {
    const api = new FakeApi();
    const wg = new LimitedWg(65_536);
    const agent = new Agent(api, wg, { ...options, maxPeers: 2 });
    api.answers.push(answer({ version: 1, peers: [0, 1, 2].map(peer) }));
    await agent.syncOnce();
    expect(wg.held.size).toBe(2);
    await agent.reportOnce();
    expect(api.reports[0]!.wireguard).toEqual({ kind: 'userspace', maxPeers: 2, peers: 2, refused: 1 });
  });

  it('runs on its own loop without a retry storm while full (one fetch per change, no failures)', async () => {
    const api = new FakeApi();
    const wg = new LimitedWg(3);
    const agent = new Agent(api, wg, options);
    api.answers.push(answer({ version: 1, peers: [0, 1, 2, 3, 4].map(peer) }));
    api.answers.push(answer({ version: 2, full: false, changedOwners: [5], peers: [peer(5)] }));
    // After the scripted answers the fake API fails: run() backs off; we stop it at the first failure.
    let failed = 0;
    const done = agent.run();
    const origDesired = api.desired.bind(api);
    api.desired = async () => {
      if (!api.answers.length) {
        failed++;
        agent.stop();
      }
      return origDesired();
    };
    await done;
    expect(failed).toBe(1); // the two changes, then the stop: nothing retried for the refused peers
    expect(api.desiredCalls).toBe(3);
    expect(wg.failures).toBe(0);
    expect(wg.held.size).toBe(3);
  });
});

describe('PeerBudget', () => {
  it('fits a full state: present peers first, then the desired order', () => {
    const desired: DesiredPeers = new Map([0, 1, 2, 3].map((i) => [key(i), peer(i)]));
    const b = PeerBudget.fit(desired, (k) => k === key(3), 2);
    expect([...b.applied.keys()]).toEqual([key(3), key(0)]);
    expect([...b.refused]).toEqual([key(1), key(2)]);
  });
});

describe('isPeerCapError', () => {
  it('knows the interface is full from what wg says, "Invalid argument" only at wireguard-go\'s cap', () => {
    expect(isPeerCapError('wg set failed: Unable to modify interface: Invalid argument', 65_536)).toBe(true);
    expect(isPeerCapError('wg set failed: Unable to modify interface: Invalid argument', 1200)).toBe(false);
    expect(isPeerCapError('wg syncconf failed: Command failed: wg syncconf wg0 /x (killed by SIGPIPE)', 65_536)).toBe(
      true,
    );
    expect(isPeerCapError('wg syncconf failed: Unable to modify interface: Cannot allocate memory', 1_048_576)).toBe(
      true,
    );
    expect(isPeerCapError('wg set failed: Unable to modify interface: No such device', 10)).toBe(false);
  });
});
