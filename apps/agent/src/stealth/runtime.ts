import { X509Certificate } from 'node:crypto';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import type http from 'node:http';
import { type DesiredState, type NodeReport, type NodeStealthStatus, type NodeStealthUser, ownerOfStealthEmail, stealthEmail } from '@warren/contract';
import type { StealthConfig } from './config.js';
import { type CoreApi, isAlreadyExists, isNotFound } from './core-api.js';
import { CORE_TAGS } from './render.js';
import { serveSite } from './site.js';
import { type StealthUsers, diffStealthUsers, nextStealthUsers } from './users.js';

type Log = (level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;

/** How often the core is looked at (up, restarted): a restarted core has lost its users and gets them back within this. */
export const CORE_CHECK_MS = 2000;

/** The notAfter of a PEM certificate (Unix ms), null when it cannot be read. */
export function certNotAfter(pem: string): number | null {
  try {
    return Date.parse(new X509Certificate(pem).validTo) || null;
  } catch {
    return null;
  }
}

/** "V2Ray 4.34.0 (user) …" → "4.34.0". */
export function parseCoreVersion(out: string): string | null {
  return /\b(?:V2Ray|Xray)\s+v?(\d+\.\d+\.\d+)/i.exec(out)?.[1] ?? null;
}

/**
 * Keeps the stealth core's users equal to the API's desired state, on the running core:
 *  - each answer (the agent's applier) removes the gone and rotated users and adds the new ones,
 *    one AlterInbound per user and inbound: no restart, other customers' connections untouched;
 *  - the core runs as its own unit, so it may restart without the agent (it then has no users) or
 *    outlive it (it then may hold users revoked while the agent was away): a check every 2 s sees
 *    a restart by its uptime going back and loads everyone again; on the first contact every owner
 *    this agent ever gave the core (remembered in the state directory) is removed unless desired;
 *  - a failed call leaves the owner marked and retried by the check, never failing WireGuard's round;
 *  - per-customer bytes are taken from the core's counters (reset on read) and reported.
 */
export class StealthRuntime {
  private users: StealthUsers = new Map();
  /** Owners whose state in the core is unknown (a call failed): re-synced by the next check. */
  private dirty = new Set<number>();
  /** Owners the core may hold (written before they are added): removed after a restart of the agent unless desired. */
  private known = new Set<number>();
  private firstContact = true;
  /** The first answer arrived: before it, the agent does not know whom the core should hold. */
  private haveState = false;
  private lastUptime?: { s: number; at: number };
  private up = false;
  private version: string | null = null;
  private pending = new Map<number, { rx: number; tx: number }>();
  private sent?: Map<number, { rx: number; tx: number }>;
  private chain: Promise<unknown> = Promise.resolve();
  private timer?: NodeJS.Timeout;
  private servers: http.Server[] = [];
  private stopped = false;

  constructor(
    private readonly c: StealthConfig,
    private readonly core: CoreApi,
    private readonly log: Log,
    private readonly now: () => number = Date.now,
  ) {}

  /** Serialises everything that talks to the core, so a check never interleaves with an apply. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.chain.then(fn, fn);
    this.chain = p.catch(() => undefined);
    return p;
  }

  async start(): Promise<void> {
    try {
      this.known = new Set((JSON.parse(await fs.readFile(this.c.stateFile, 'utf8')) as number[]).filter((n) => Number.isInteger(n) && n > 0));
    } catch {
      /* none yet */
    }
    this.servers.push(await serveSite(this.c.site.host, this.c.site.port));
    if (this.c.http) {
      try {
        this.servers.push(await serveSite(this.c.http.host, this.c.http.port));
      } catch (err) {
        this.log('warn', 'stealth: cannot serve the website on plain HTTP', { listen: `${this.c.http.host}:${this.c.http.port}`, error: (err as Error).message });
      }
    }
    this.version = await new Promise((resolve) => execFile(this.c.v2rayBin, ['-version'], { timeout: 5000 }, (err, out) => resolve(err ? null : parseCoreVersion(out))));
    this.log('info', 'stealth started', { host: this.c.host, port: this.c.port, core: this.version, site: `${this.c.site.host}:${this.c.site.port}` });
    const tick = () => {
      void this.check().finally(() => {
        if (!this.stopped) this.timer = setTimeout(tick, CORE_CHECK_MS);
      });
    };
    tick();
  }

  /** The agent's applier: never fails for the core being down (the check catches up), only for a malformed answer. */
  apply = async (answer: DesiredState): Promise<void> => {
    const next = nextStealthUsers(answer.full ? null : this.users, answer);
    await this.serial(async () => {
      const d = diffStealthUsers(this.users, next);
      this.users = next;
      this.haveState = true;
      if (this.firstContact) return; // the check loads everyone at the first contact
      const started = this.now();
      const removed = new Set(d.remove);
      const owners = new Set([...d.remove, ...d.add.map((u) => u.owner)]);
      await this.remember(owners);
      let failed = 0;
      for (const owner of owners) if (!(await this.syncOwner(owner, removed.has(owner)))) failed++;
      if (owners.size) this.log('info', 'stealth users applied', { users: next.size, removed: d.remove.length, added: d.add.length, failed, ms: this.now() - started });
    });
  };

  /** Makes the core hold exactly the desired credentials of one owner; false (and marked dirty) when the core did not answer. */
  private async syncOwner(owner: number, removeFirst: boolean): Promise<boolean> {
    const email = stealthEmail(owner);
    const want: NodeStealthUser | undefined = this.users.get(owner);
    try {
      if (removeFirst) {
        for (const tag of [CORE_TAGS.trojan, CORE_TAGS.vless]) {
          await this.core.removeUser(tag, email).catch((err: unknown) => {
            if (!isNotFound(err)) throw err;
          });
        }
      }
      if (want) {
        await this.core.addUser(CORE_TAGS.vless, email, { vless: want.id }).catch((err: unknown) => {
          if (!isAlreadyExists(err)) throw err;
        });
        await this.core.addUser(CORE_TAGS.trojan, email, { trojan: want.password }).catch((err: unknown) => {
          if (!isAlreadyExists(err)) throw err;
        });
      }
      this.dirty.delete(owner);
      return true;
    } catch (err) {
      this.dirty.add(owner);
      this.log('warn', 'stealth: core call failed', { owner, error: (err as Error).message.slice(0, 200) });
      return false;
    }
  }

  /** Writes the owners the core may hold before they are given to it (owners only: no credentials on disk). */
  private async remember(owners: Iterable<number>): Promise<void> {
    const before = this.known.size;
    for (const o of owners) if (this.users.has(o)) this.known.add(o);
    if (this.known.size === before) return;
    const tmp = `${this.c.stateFile}.tmp-${process.pid}`;
    await fs.writeFile(tmp, JSON.stringify([...this.known]), { mode: 0o600 });
    await fs.rename(tmp, this.c.stateFile);
  }

  /** Is the core up, did it restart; loads everyone when it did (or at the first contact) and retries failed owners. */
  check(): Promise<void> {
    return this.serial(async () => {
      let uptime: number;
      try {
        uptime = await this.core.uptime();
      } catch (err) {
        if (this.up) this.log('warn', 'stealth core unreachable', { api: this.c.api, error: (err as Error).message.slice(0, 200) });
        this.up = false;
        return;
      }
      const at = this.now();
      // Expected uptime if it ran on; a clearly smaller one is a restart (an empty core).
      const restarted = this.lastUptime !== undefined && uptime + 2 < this.lastUptime.s + (at - this.lastUptime.at) / 1000 - 1;
      if (!this.up) this.log('info', 'stealth core reachable', { uptimeS: uptime });
      this.up = true;
      this.lastUptime = { s: uptime, at };
      if (!this.haveState) return;
      if (this.firstContact || restarted) {
        const started = this.now();
        // First contact: the core may still hold anyone this agent ever gave it; remove those not desired.
        const stale = this.firstContact ? [...this.known].filter((o) => !this.users.has(o)) : [];
        await this.remember(this.users.keys());
        let failed = 0;
        for (const o of stale) if (!(await this.syncOwner(o, true))) failed++;
        for (const o of this.users.keys()) if (!(await this.syncOwner(o, this.firstContact))) failed++;
        if (failed === 0) {
          if (stale.length) this.known = new Set(this.users.keys());
          this.firstContact = false;
        }
        this.log('info', restarted ? 'stealth core restarted: users loaded again' : 'stealth users loaded', { users: this.users.size, staleRemoved: stale.length, failed, ms: this.now() - started });
        return;
      }
      for (const o of [...this.dirty]) await this.syncOwner(o, true);
    });
  }

  /** The report's part: the core's status and the bytes counted since the last accepted report. */
  async collect(): Promise<Pick<NodeReport, 'stealth' | 'stealthTraffic'>> {
    if (this.up) {
      try {
        const stats = await this.core.takeUserStats();
        for (const [email, s] of stats) {
          const owner = ownerOfStealthEmail(email);
          if (owner === null || (s.up === 0 && s.down === 0)) continue;
          const e = this.pending.get(owner) ?? { rx: 0, tx: 0 };
          // The node's view, as WireGuard reports it: rx = from the customer (uplink), tx = to them.
          e.rx += s.up;
          e.tx += s.down;
          this.pending.set(owner, e);
        }
      } catch (err) {
        this.log('warn', 'stealth: counters unreadable', { error: (err as Error).message.slice(0, 200) });
      }
    }
    let cert: string | undefined;
    if (this.c.certFile) cert = await fs.readFile(this.c.certFile, 'utf8').catch(() => undefined);
    const stealth: NodeStealthStatus = {
      host: this.c.host,
      port: this.c.port,
      wsPath: this.c.wsPath,
      up: this.up,
      version: this.version,
      users: this.users.size,
      certNotAfter: cert ? certNotAfter(cert) : null,
    };
    this.sent = new Map(this.pending);
    return { stealth, stealthTraffic: [...this.sent].map(([owner, b]) => ({ owner, rxBytes: b.rx, txBytes: b.tx })) };
  }

  /** The report was accepted: what it carried is no longer pending (counted again on failure). */
  committed(): void {
    for (const [owner, b] of this.sent ?? []) {
      const e = this.pending.get(owner);
      if (!e) continue;
      e.rx -= b.rx;
      e.tx -= b.tx;
      if (e.rx <= 0 && e.tx <= 0) this.pending.delete(owner);
    }
    this.sent = undefined;
  }

  get state() {
    return { up: this.up, users: this.users.size, dirty: this.dirty.size, version: this.version };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.chain;
    await Promise.all(this.servers.map((s) => new Promise((r) => s.close(r))));
    this.core.close();
  }
}
