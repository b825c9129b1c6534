import os from 'node:os';
import {
  type DesiredState,
  MAX_REPORTED_PEERS,
  type NodeReport,
  WG_EXTRA_PORTS_MAX,
  type WgKind,
} from '@warren/contract';
import type { Dump } from './wg/dump.js';
import { PeerBudget, isPeerCapError } from './wg/capacity.js';
import { type PeerDiff, diffPeers, diffSize, wgSetArgs } from './wg/diff.js';
import { writeReportedKey } from './wg/reported-key.js';
import { type DesiredPeers, PeerState, nextDesired } from './state.js';

export interface AgentApi {
  desired(q: { since?: number; at?: number; wait?: number }): Promise<DesiredState>;
  report(r: NodeReport): Promise<number>;
  abort?(): void;
}
export interface AgentWg {
  readonly iface: string;
  dump(): Promise<Dump>;
  set(args: string[]): Promise<void>;
  /** Converges the interface on exactly these peers (one `wg syncconf`). */
  syncconf(peers: DesiredPeers): Promise<void>;
  /** The implementation and the peers one interface holds (wg/capacity.ts); absent: no cap known (tests). */
  limits?(): Promise<{ kind: WgKind; maxPeers: number }>;
}
export type Log = (level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;

export interface AgentOptions {
  waitS: number;
  reportIntervalS: number;
  resyncIntervalS: number;
  capacity: number;
  maxSetChanges: number;
  /** The operator's own peer cap, below the implementation's (--max-peers); the lower of the two holds. */
  maxPeers?: number;
  /** Called with each answer after WireGuard is applied (OpenVPN/SOCKS5 users, services/runtime.ts); a failure makes the next round full. */
  appliers?: ((answer: DesiredState) => Promise<void>)[];
  /** Add to each report (the stealth core's status and bytes); committed() once the API accepted it. */
  reportParts?: { collect(): Promise<Partial<NodeReport>>; committed(): void }[];
  /** Told what happens (metrics.ts); nothing by default. */
  observer?: AgentObserver;
  /** Reported to the API (the operator console shows it); the agent's own version by default in main.ts. */
  version?: string;
  /** Where the public key the API accepted is kept for `warren-agent setup` (wg/reported-key.ts); none: not kept. */
  stateDir?: string;
  /**
   * The extra public UDP ports whose redirect to `listenPort` is in place (wg/extra-ports.ts),
   * reported as wgExtraPorts; absent: not reported (tests; the API then offers none).
   */
  extraPorts?: (listenPort: number) => Promise<number[]>;
}

export type ApplyMode = 'none' | 'set' | 'syncconf';

/** What the agent tells its metrics: applies and their time, failures, syncs, the API's reachability, active peers. */
export interface AgentObserver {
  applied(mode: ApplyMode, seconds: number): void;
  applyFailed(): void;
  /** A round fetched and applied the desired state (atMs: wall clock). */
  synced(atMs: number, peers: number, version: number): void;
  api(call: 'desired' | 'report', ok: boolean): void;
  reported(activePeers: number): void;
  /** The interface's capacity at a report (metrics: the cap, peers, refused peers); optional. */
  capacity?(c: NonNullable<NodeReport['wireguard']>): void;
  /** The interface's peers at a report (metrics: handshake ages, bytes); optional for observers that do not care. */
  wireguard?(peers: readonly { latestHandshake: number; rxBytes: number; txBytes: number }[], nowS: number): void;
}

/** Exponential backoff with jitter: ~1 s, 2 s, 4 s … capped at 30 s. */
export function backoffMs(failures: number, random = Math.random()): number {
  const base = Math.min(30_000, 1000 * 2 ** Math.max(0, failures - 1));
  return Math.round(base * (0.5 + random / 2));
}

/** 0–100: the busier of CPU (1-minute load per core) and active peers against capacity. */
export function loadPercent(activePeers: number, capacity: number, loadAvg1: number, cpus: number): number {
  const cpu = cpus > 0 ? (loadAvg1 / cpus) * 100 : 0;
  const peers = capacity > 0 ? (activePeers / capacity) * 100 : 0;
  return Math.max(0, Math.min(100, Math.round(Math.max(cpu, peers))));
}

/** A handshake within this window means the peer is connected (WireGuard rekeys every 2 minutes). */
const ACTIVE_WINDOW_S = 180;

/**
 * Keeps the interface's peers equal to the API's desired state:
 *  - starts with a full state applied by one `wg syncconf`;
 *  - then long-polls for deltas and applies each as one `wg set` (live sessions untouched);
 *  - every resync interval fetches the full state again and syncconfs, repairing any drift;
 *  - an answer is validated whole before anything is applied; a failed `wg` call makes the next
 *    round a full syncconf; API errors back off and keep the interface as it is (fail-static).
 */
export class Agent {
  /** The desired peers, indexed by owner; the interface holds them when appliedKnown. */
  private desired: PeerState | null = null;
  /** False after a failed or interrupted apply: the next round is a full syncconf. */
  private appliedKnown = false;
  private version?: number;
  private at?: number;
  private needFull = true;
  private lastFullAt = 0;
  private failures = 0;
  private stopped = false;
  private wake?: () => void;
  private reportTimer?: NodeJS.Timeout;
  private lastReported = new Map<string, string>();
  /** The last apply's error for the report (the operator console), null once an apply succeeded; unset before the first. */
  private lastApplyError: string | null | undefined;
  /** The interface's implementation and cap (the lower of its own and --max-peers); unset until the first round. */
  private limits?: { kind: WgKind; maxPeers: number };
  /** A cap learnt from an apply the interface refused as full (a cap below what was detected). */
  private learnedCap?: number;
  /** Set while more peers are desired than the interface holds: what it holds and what waits. null: it holds them all. */
  private budget: PeerBudget | null = null;
  private limitsChecked = false;

  constructor(
    private readonly api: AgentApi,
    private readonly wg: AgentWg,
    private readonly o: AgentOptions,
    private readonly log: Log = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  get state() {
    return {
      version: this.version,
      peers: this.desired?.size ?? 0,
      failures: this.failures,
      refused: this.budget?.refused.size ?? 0,
      maxPeers: this.limits?.maxPeers,
    };
  }

  /** One round: fetch (full or long-poll delta), then apply. */
  async syncOnce(): Promise<{ mode: ApplyMode; changes: number; version: number }> {
    if (this.now() - this.lastFullAt > this.o.resyncIntervalS * 1000) this.needFull = true;
    const full = this.needFull || this.desired === null || this.version === undefined;
    const observer = this.o.observer;
    let answer: DesiredState;
    try {
      answer = await this.api.desired(full ? {} : { since: this.version, at: this.at, wait: this.o.waitS });
    } catch (err) {
      if (!this.stopped) observer?.api('desired', false);
      throw err;
    }
    observer?.api('desired', true);
    const started = this.now();
    const cap = await this.cap();
    let mode: ApplyMode = 'none';
    let changes = 0;
    let next: PeerState;
    try {
      if (answer.full || this.desired === null || !this.appliedKnown) {
        // A full answer (or an interface in an unknown state): the whole set, one syncconf.
        next = new PeerState(nextDesired(null, answer));
        changes =
          this.desired && this.appliedKnown
            ? diffSize(diffPeers(this.budget?.applied ?? this.desired.peers, next.peers))
            : next.size;
        const before = this.appliedKnown ? (this.budget?.applied ?? this.desired?.peers) : undefined;
        this.appliedKnown = false;
        this.desired = next;
        if (next.size > cap) {
          // More than the interface holds: keep whoever is on it, add others while there is room, refuse the rest.
          const present = before ?? new Set((await this.wg.dump()).peers.map((p) => p.publicKey));
          this.budget = PeerBudget.fit(next.peers, (key) => present.has(key), cap);
          await this.wg.syncconf(this.budget.applied);
        } else {
          this.budget = null;
          await this.wg.syncconf(next.peers);
        }
        mode = 'syncconf';
        this.lastFullAt = this.now();
        this.needFull = false;
      } else {
        // A delta: applied in place, at the cost of the accounts it names (validated whole first).
        next = this.desired;
        let d: PeerDiff = next.applyDelta(answer);
        this.appliedKnown = false;
        // Over the cap (or just crossing it): the interface's own change, within the cap.
        if (!this.budget && next.size > cap) this.budget = PeerBudget.entering(next.peers, d, cap);
        if (this.budget) d = this.budget.apply(d, next.peers);
        const onIface = this.budget?.applied ?? next.peers;
        changes = diffSize(d);
        if (changes > this.o.maxSetChanges) {
          await this.wg.syncconf(onIface);
          mode = 'syncconf';
        } else if (changes > 0) {
          await this.wg.set(wgSetArgs(this.wg.iface, d));
          mode = 'set';
        }
        if (this.budget && !this.budget.refused.size) this.budget = null;
      }
      this.appliedKnown = true;
      for (const apply of this.o.appliers ?? []) await apply(answer);
    } catch (err) {
      this.needFull = true;
      // One line, bounded: what `wg`/the services said (no client addresses exist here to leak).
      this.lastApplyError = String((err as Error)?.message ?? err)
        .replace(/\s+/g, ' ')
        .slice(0, 500);
      observer?.applyFailed();
      await this.learnCap(this.lastApplyError);
      throw err;
    }
    this.lastApplyError = null;
    this.noteRefused();
    observer?.applied(mode, (this.now() - started) / 1000);
    observer?.synced(Date.now(), next.size, answer.version);
    this.version = answer.version;
    this.at = answer.evaluatedAt;
    if (mode !== 'none')
      this.log('info', 'applied', {
        version: answer.version,
        full: answer.full,
        mode,
        changes,
        peers: next.size,
        ms: this.now() - started,
      });
    return { mode, changes, version: answer.version };
  }

  async reportOnce(): Promise<number> {
    const dump = await this.wg.dump();
    const nowS = Math.floor(this.now() / 1000);
    const active = dump.peers.filter((p) => p.latestHandshake > 0 && nowS - p.latestHandshake < ACTIVE_WINDOW_S).length;
    const sig = (p: Dump['peers'][number]) => `${p.latestHandshake}:${p.rxBytes}:${p.txBytes}`;
    const changed = dump.peers
      .filter((p) => p.latestHandshake > 0 && this.lastReported.get(p.publicKey) !== sig(p))
      .slice(0, MAX_REPORTED_PEERS);
    const parts: Partial<NodeReport>[] = [];
    for (const part of this.o.reportParts ?? []) parts.push(await part.collect());
    if (this.o.extraPorts && dump.iface.listenPort) {
      let wgExtraPorts: number[] = [];
      try {
        wgExtraPorts = (await this.o.extraPorts(dump.iface.listenPort)).slice(0, WG_EXTRA_PORTS_MAX);
      } catch (err) {
        // Not verified is not in place: the API then offers none of them.
        this.log('warn', 'could not check the extra WireGuard ports', { error: (err as Error).message });
      }
      parts.push({ wgExtraPorts });
    }
    const report: NodeReport = {
      ...Object.assign({}, ...parts),
      ...(dump.iface.publicKey ? { publicKey: dump.iface.publicKey } : {}),
      ...(dump.iface.listenPort ? { listenPort: dump.iface.listenPort } : {}),
      load: loadPercent(active, this.o.capacity, os.loadavg()[0] ?? 0, os.cpus().length),
      activePeers: active,
      ...(this.o.version ? { agentVersion: this.o.version.slice(0, 64) } : {}),
      ...(this.lastApplyError !== undefined ? { lastApplyError: this.lastApplyError } : {}),
      ...(this.limits
        ? {
            wireguard: {
              kind: this.limits.kind,
              maxPeers: this.limits.maxPeers,
              peers: dump.peers.length,
              refused: this.budget?.refused.size ?? 0,
            },
          }
        : {}),
      peers: changed.map((p) => ({
        publicKey: p.publicKey,
        lastHandshake: p.latestHandshake,
        rxBytes: p.rxBytes,
        txBytes: p.txBytes,
      })),
    };
    this.o.observer?.reported(active);
    if (report.wireguard) this.o.observer?.capacity?.(report.wireguard);
    this.o.observer?.wireguard?.(dump.peers, nowS);
    let accepted: number;
    try {
      accepted = await this.api.report(report);
    } catch (err) {
      if (!this.stopped) this.o.observer?.api('report', false);
      throw err;
    }
    this.o.observer?.api('report', true);
    for (const part of this.o.reportParts ?? []) part.committed();
    if (this.o.stateDir && report.publicKey) {
      try {
        writeReportedKey(this.o.stateDir, report.publicKey);
      } catch (err) {
        this.log('warn', 'could not keep the reported public key', { error: (err as Error).message });
      }
    }
    const present = new Set(dump.peers.map((p) => p.publicKey));
    for (const key of this.lastReported.keys()) if (!present.has(key)) this.lastReported.delete(key);
    for (const p of changed) this.lastReported.set(p.publicKey, sig(p));
    this.log('debug', 'reported', { activePeers: active, peers: changed.length, accepted });
    return accepted;
  }

  /** Runs until stop(): the sync loop, and reports on their own timer. */
  async run(): Promise<void> {
    const report = async () => {
      try {
        await this.reportOnce();
      } catch (err) {
        this.log('warn', 'report failed', { error: (err as Error).message });
      }
      if (!this.stopped) this.reportTimer = setTimeout(report, this.o.reportIntervalS * 1000);
    };
    void report();
    while (!this.stopped) {
      const started = this.now();
      try {
        const r = await this.syncOnce();
        if (this.failures) this.log('info', 'recovered', { after: this.failures });
        this.failures = 0;
        // Guard against a server that answers long polls at once with nothing new.
        if (r.mode === 'none' && this.now() - started < 200) await this.sleep(1000);
      } catch (err) {
        if (this.stopped) break;
        this.failures++;
        const delay = backoffMs(this.failures);
        this.log(this.failures > 3 ? 'error' : 'warn', 'sync failed', {
          error: (err as Error).message,
          retryInMs: delay,
          failures: this.failures,
        });
        await this.sleep(delay);
      }
    }
  }

  /** The interface's cap now: its implementation's, the operator's --max-peers, or one learnt from a refusal, the lowest. */
  private async cap(): Promise<number> {
    if (!this.limitsChecked) {
      this.limitsChecked = true;
      const found = await this.wg.limits?.();
      const max = Math.min(found?.maxPeers ?? Infinity, this.o.maxPeers ?? Infinity);
      if (Number.isFinite(max)) this.limits = { kind: found?.kind ?? 'kernel', maxPeers: max };
    }
    if (this.learnedCap !== undefined && this.learnedCap < (this.limits?.maxPeers ?? Infinity))
      this.limits = { kind: this.limits?.kind ?? 'kernel', maxPeers: this.learnedCap };
    return this.limits?.maxPeers ?? Infinity;
  }

  /**
   * After a failed apply: when the interface said it is full and holds fewer peers than were sent,
   * what it holds is its cap from now on (logged once), so the next round fits within it instead of
   * failing the same way again and again.
   */
  private async learnCap(error: string): Promise<void> {
    if (!this.desired) return;
    let held: number;
    try {
      held = (await this.wg.dump()).peers.length;
    } catch {
      return;
    }
    if (
      !isPeerCapError(error, held) ||
      held <= 0 ||
      held >= this.desired.size ||
      held >= (this.limits?.maxPeers ?? Infinity)
    )
      return;
    this.learnedCap = held;
    this.log('error', 'the interface refused peers beyond its capacity; holding at most what it took from now on', {
      maxPeers: held,
      desired: this.desired.size,
    });
  }

  private refusedLogged = 0;
  /** One line when peers start being refused for want of room, one when they all fit again: never a line per round. */
  private noteRefused(): void {
    const refused = this.budget?.refused.size ?? 0;
    if (refused > 0 && this.refusedLogged === 0)
      this.log('warn', 'more peers desired than the interface holds: the rest are refused until there is room', {
        maxPeers: this.limits?.maxPeers,
        kind: this.limits?.kind,
        refused,
      });
    else if (refused === 0 && this.refusedLogged > 0)
      this.log('info', 'every desired peer fits on the interface again', { maxPeers: this.limits?.maxPeers });
    this.refusedLogged = refused;
  }

  stop(): void {
    this.stopped = true;
    if (this.reportTimer) clearTimeout(this.reportTimer);
    this.api.abort?.();
    this.wake?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }
}
