import os from 'node:os';
import { type DesiredState, MAX_REPORTED_PEERS, type NodeReport } from '@warren/contract';
import type { Dump } from './wg/dump.js';
import { diffPeers, diffSize, wgSetArgs } from './wg/diff.js';
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
}
export type Log = (level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;

export interface AgentOptions {
  waitS: number;
  reportIntervalS: number;
  resyncIntervalS: number;
  capacity: number;
  maxSetChanges: number;
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

  constructor(
    private readonly api: AgentApi,
    private readonly wg: AgentWg,
    private readonly o: AgentOptions,
    private readonly log: Log = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  get state() {
    return { version: this.version, peers: this.desired?.size ?? 0, failures: this.failures };
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
    let mode: ApplyMode = 'none';
    let changes = 0;
    let next: PeerState;
    try {
      if (answer.full || this.desired === null || !this.appliedKnown) {
        // A full answer (or an interface in an unknown state): the whole set, one syncconf.
        next = new PeerState(nextDesired(null, answer));
        changes = this.desired && this.appliedKnown ? diffSize(diffPeers(this.desired.peers, next.peers)) : next.size;
        this.appliedKnown = false;
        this.desired = next;
        await this.wg.syncconf(next.peers);
        mode = 'syncconf';
        this.lastFullAt = this.now();
        this.needFull = false;
      } else {
        // A delta: applied in place, at the cost of the accounts it names (validated whole first).
        next = this.desired;
        const d = next.applyDelta(answer);
        this.appliedKnown = false;
        changes = diffSize(d);
        if (changes > this.o.maxSetChanges) {
          await this.wg.syncconf(next.peers);
          mode = 'syncconf';
        } else if (changes > 0) {
          await this.wg.set(wgSetArgs(this.wg.iface, d));
          mode = 'set';
        }
      }
      this.appliedKnown = true;
      for (const apply of this.o.appliers ?? []) await apply(answer);
    } catch (err) {
      this.needFull = true;
      // One line, bounded: what `wg`/the services said (no client addresses exist here to leak).
      this.lastApplyError = String((err as Error)?.message ?? err).replace(/\s+/g, ' ').slice(0, 500);
      observer?.applyFailed();
      throw err;
    }
    this.lastApplyError = null;
    observer?.applied(mode, (this.now() - started) / 1000);
    observer?.synced(Date.now(), next.size, answer.version);
    this.version = answer.version;
    this.at = answer.evaluatedAt;
    if (mode !== 'none') this.log('info', 'applied', { version: answer.version, full: answer.full, mode, changes, peers: next.size, ms: this.now() - started });
    return { mode, changes, version: answer.version };
  }

  async reportOnce(): Promise<number> {
    const dump = await this.wg.dump();
    const nowS = Math.floor(this.now() / 1000);
    const active = dump.peers.filter((p) => p.latestHandshake > 0 && nowS - p.latestHandshake < ACTIVE_WINDOW_S).length;
    const sig = (p: Dump['peers'][number]) => `${p.latestHandshake}:${p.rxBytes}:${p.txBytes}`;
    const changed = dump.peers.filter((p) => p.latestHandshake > 0 && this.lastReported.get(p.publicKey) !== sig(p)).slice(0, MAX_REPORTED_PEERS);
    const parts: Partial<NodeReport>[] = [];
    for (const part of this.o.reportParts ?? []) parts.push(await part.collect());
    const report: NodeReport = {
      ...Object.assign({}, ...parts),
      ...(dump.iface.publicKey ? { publicKey: dump.iface.publicKey } : {}),
      ...(dump.iface.listenPort ? { listenPort: dump.iface.listenPort } : {}),
      load: loadPercent(active, this.o.capacity, os.loadavg()[0] ?? 0, os.cpus().length),
      activePeers: active,
      ...(this.o.version ? { agentVersion: this.o.version.slice(0, 64) } : {}),
      ...(this.lastApplyError !== undefined ? { lastApplyError: this.lastApplyError } : {}),
      peers: changed.map((p) => ({ publicKey: p.publicKey, lastHandshake: p.latestHandshake, rxBytes: p.rxBytes, txBytes: p.txBytes })),
    };
    this.o.observer?.reported(active);
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
        this.log(this.failures > 3 ? 'error' : 'warn', 'sync failed', { error: (err as Error).message, retryInMs: delay, failures: this.failures });
        await this.sleep(delay);
      }
    }
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
