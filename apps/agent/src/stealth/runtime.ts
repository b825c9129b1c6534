import { X509Certificate, createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import type http from 'node:http';
import {
  type DesiredState,
  type NodeReport,
  type NodeStealthStatus,
  type NodeStealthUser,
  ownerOfStealthEmail,
  stealthEmail,
} from '@warren/contract';
import type { StealthConfig } from './config.js';
import { type CoreApi, isAlreadyExists, isNotFound } from './core-api.js';
import { CORE_TAGS } from './render.js';
import { serveSite } from './site.js';
import { type StealthUsers, diffStealthUsers, nextStealthUsers } from './users.js';

type Log = (level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;

/** How often the core is looked at (up, restarted): a restarted core has lost its users and gets them back within this. */
export const CORE_CHECK_MS = 2000;
/** A stealth session is live while its credential moved bytes within this long (WireGuard's 3 minutes). */
export const ACTIVE_MS = 180_000;
/** How the open connections of an ended customer are found and ended (README: Stealth, "When access ends"). */
export const WATCH = {
  /** How often the counters of removed credentials are read. */
  everyMs: 500,
  /** Bytes in this long after the removal are the last of what was in flight, not an open connection. */
  graceMs: 1500,
  /** How long removed credentials are watched: the core's connIdle (an idle connection is closed by then) and a margin. */
  forMs: 125_000,
  /** At most one restart of the core in this long (a burst of ended customers is one restart). */
  restartGapMs: 10_000,
  /** A restart asked for and not seen (the core's uptime did not go back) within this is reported as failed. */
  restartTimeoutMs: 15_000,
  /** How often the core is looked at while a restart is awaited. */
  restartCheckMs: 100,
} as const;

/** The tag of a generation of credentials in the core's email (8 hex digits of their hash; nothing to recover them from). */
export const credentialTag = (u: Pick<NodeStealthUser, 'id' | 'password'>): string =>
  createHash('sha256').update(`${u.id}\n${u.password}`).digest('hex').slice(0, 8);
export const emailOf = (u: NodeStealthUser): string => stealthEmail(u.owner, credentialTag(u));

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
 *    a restart by its uptime going back and loads everyone again; on the first contact every
 *    credential this agent ever gave the core (remembered in the state directory) is removed unless desired;
 *  - a failed call leaves the owner marked and retried by the check, never failing WireGuard's round;
 *  - per-customer bytes are taken from the core's counters (reset on read) and reported;
 *  - V2Ray 4 cannot end one user's open connections, and removing a user leaves them running: the
 *    counters of removed credentials are watched, and when they still move after a grace period
 *    (an open connection), the core is restarted (at most once per restartGapMs; its unit's restart
 *    trigger, README: Stealth), which ends every connection; the others' apps reconnect by themselves.
 */
export class StealthRuntime {
  private users: StealthUsers = new Map();
  /** Owners whose state in the core is unknown (a call failed): re-synced by the next check. */
  private dirty = new Set<number>();
  /** The emails the core may hold, by owner (written before they are added): removed after a restart of the agent unless desired. */
  private known = new Map<number, Set<string>>();
  private knownChanged = false;
  private firstContact = true;
  /** The first answer arrived: before it, the agent does not know whom the core should hold. */
  private haveState = false;
  private lastUptime?: { s: number; at: number };
  private up = false;
  private version: string | null = null;
  private pending = new Map<number, { rx: number; tx: number }>();
  private sent?: Map<number, { rx: number; tx: number }>;
  /** When each credential last moved bytes (activeSessions). */
  private lastActive = new Map<string, number>();
  /** Removed credentials whose connections may still be open, by email: since when, and whether they moved after the grace. */
  private watched = new Map<string, { owner: number; since: number; live: boolean }>();
  private watchTimer?: NodeJS.Timeout;
  private watching = false;
  /** A restart asked for and not yet seen. */
  private restart?: { at: number; owners: number[] };
  private lastRestartAt = -Infinity;
  private restarts = 0;
  private chain: Promise<unknown> = Promise.resolve();
  private timer?: NodeJS.Timeout;
  private servers: http.Server[] = [];
  private stopped = false;

  constructor(
    private readonly c: StealthConfig,
    private readonly core: CoreApi,
    private readonly log: Log,
    private readonly now: () => number = Date.now,
    /** Asks for a restart of the core (by default: writes the trigger file its restart unit watches). */
    private readonly restartCore: (reason: string) => Promise<void> = (reason) =>
      fs.writeFile(c.restartFile, `${new Date().toISOString()} ${reason}\n`, { mode: 0o600 }),
  ) {}

  /** Serialises everything that talks to the core, so a check never interleaves with an apply. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.chain.then(fn, fn);
    this.chain = p.catch(() => undefined);
    return p;
  }

  async start(): Promise<void> {
    this.known = await readKnown(this.c.stateFile);
    this.servers.push(await serveSite(this.c.site.host, this.c.site.port));
    if (this.c.http) {
      try {
        this.servers.push(await serveSite(this.c.http.host, this.c.http.port));
      } catch (err) {
        this.log('warn', 'stealth: cannot serve the website on plain HTTP', {
          listen: `${this.c.http.host}:${this.c.http.port}`,
          error: (err as Error).message,
        });
      }
    }
    this.version = await new Promise((resolve) =>
      execFile(this.c.v2rayBin, ['-version'], { timeout: 5000 }, (err, out) =>
        resolve(err ? null : parseCoreVersion(out)),
      ),
    );
    this.log('info', 'stealth started', {
      host: this.c.host,
      port: this.c.port,
      core: this.version,
      site: `${this.c.site.host}:${this.c.site.port}`,
    });
    this.checkLoop();
  }

  private checkLoop = (): void => {
    this.timer = undefined;
    void this.check().finally(() => {
      if (!this.stopped) this.timer = setTimeout(this.checkLoop, this.restart ? WATCH.restartCheckMs : CORE_CHECK_MS);
    });
  };

  /** The applier: never fails for the core being down (the check catches up), only for a malformed answer. */
  apply = async (answer: DesiredState): Promise<void> => {
    const next = nextStealthUsers(answer.full ? null : this.users, answer);
    await this.serial(async () => {
      const d = diffStealthUsers(this.users, next);
      this.users = next;
      this.haveState = true;
      if (this.firstContact) return; // the check loads everyone at the first contact
      const started = this.now();
      const owners = new Set([...d.remove, ...d.add.map((u) => u.owner)]);
      await this.remember(owners);
      let failed = 0;
      for (const owner of owners) if (!(await this.syncOwner(owner, true))) failed++;
      await this.forget();
      if (owners.size)
        this.log('info', 'stealth users applied', {
          users: next.size,
          removed: d.remove.length,
          added: d.add.length,
          failed,
          watched: this.watched.size,
          ms: this.now() - started,
        });
    });
  };

  /**
   * Makes the core hold exactly the desired credentials of one owner (the other emails it may hold
   * for them removed first when `removeOthers`); false (and marked dirty) when the core did not answer.
   * A removed email the core held is watched: its connections may still be open.
   */
  private async syncOwner(owner: number, removeOthers: boolean): Promise<boolean> {
    const want: NodeStealthUser | undefined = this.users.get(owner);
    const wantEmail = want ? emailOf(want) : undefined;
    try {
      if (removeOthers) {
        for (const email of this.known.get(owner) ?? []) {
          if (email === wantEmail) continue;
          let held = false;
          for (const tag of [CORE_TAGS.trojan, CORE_TAGS.vless]) {
            try {
              await this.core.removeUser(tag, email);
              held = true;
            } catch (err) {
              if (!isNotFound(err)) throw err;
            }
          }
          if (held) this.watched.set(email, { owner, since: this.now(), live: false });
        }
      }
      if (want && wantEmail) {
        await this.core.addUser(CORE_TAGS.vless, wantEmail, { vless: want.id }).catch((err: unknown) => {
          if (!isAlreadyExists(err)) throw err;
        });
        await this.core.addUser(CORE_TAGS.trojan, wantEmail, { trojan: want.password }).catch((err: unknown) => {
          if (!isAlreadyExists(err)) throw err;
        });
        // Given back (a suspension lifted at once): its connections are the customer's again.
        this.watched.delete(wantEmail);
      }
      if (removeOthers) {
        if (wantEmail) this.known.set(owner, new Set([wantEmail]));
        else this.known.delete(owner);
        this.knownChanged = true;
      }
      this.dirty.delete(owner);
      this.startWatching();
      return true;
    } catch (err) {
      this.dirty.add(owner);
      this.log('warn', 'stealth: core call failed', { owner, error: (err as Error).message.slice(0, 200) });
      return false;
    }
  }

  /** Writes the emails the core may hold before they are given to it (emails only: no credentials on disk). */
  private async remember(owners: Iterable<number>): Promise<void> {
    let changed = false;
    for (const o of owners) {
      const u = this.users.get(o);
      if (!u) continue;
      const email = emailOf(u);
      const set = this.known.get(o) ?? new Set<string>();
      if (set.has(email)) continue;
      set.add(email);
      this.known.set(o, set);
      changed = true;
    }
    if (changed) await this.persist();
  }

  /** Writes the smaller set once removals went through (a larger file only costs a few "not found" calls later). */
  private async forget(): Promise<void> {
    if (this.knownChanged)
      await this.persist().catch((err: unknown) =>
        this.log('warn', 'stealth: cannot write the state file', { error: (err as Error).message }),
      );
  }

  private async persist(): Promise<void> {
    this.knownChanged = false;
    const tmp = `${this.c.stateFile}.tmp-${process.pid}`;
    await fs.writeFile(
      tmp,
      JSON.stringify({ emails: Object.fromEntries([...this.known].map(([o, e]) => [o, [...e]])) }),
      { mode: 0o600 },
    );
    await fs.rename(tmp, this.c.stateFile);
  }

  /** Is the core up, did it restart; loads everyone when it did (or at the first contact) and retries failed owners. */
  check(): Promise<void> {
    return this.serial(async () => {
      let uptime: number;
      try {
        uptime = await this.core.uptime();
      } catch (err) {
        if (this.up)
          this.log('warn', 'stealth core unreachable', {
            api: this.c.api,
            error: (err as Error).message.slice(0, 200),
          });
        this.up = false;
        this.restartOverdue();
        return;
      }
      const at = this.now();
      // Expected uptime if it ran on; a clearly smaller one is a restart (an empty core). After a
      // restart was asked for: a core started since then.
      const restarted =
        (this.lastUptime !== undefined && uptime + 2 < this.lastUptime.s + (at - this.lastUptime.at) / 1000 - 1) ||
        (this.restart !== undefined && uptime * 1000 < at - this.restart.at + 1000);
      if (!this.up) this.log('info', 'stealth core reachable', { uptimeS: uptime });
      this.up = true;
      this.lastUptime = { s: uptime, at };
      if (restarted) this.watched.clear(); // every connection ended with the old process
      if (!this.haveState) {
        if (restarted) this.restart = undefined;
        return;
      }
      if (this.firstContact || restarted) {
        const started = this.now();
        // First contact: the core may still hold anyone this agent ever gave it; remove those not desired.
        const stale = this.firstContact ? [...this.known.keys()].filter((o) => !this.users.has(o)) : [];
        await this.remember(this.users.keys());
        let failed = 0;
        for (const o of stale) if (!(await this.syncOwner(o, true))) failed++;
        for (const o of this.users.keys()) if (!(await this.syncOwner(o, this.firstContact))) failed++;
        await this.forget();
        if (failed === 0) this.firstContact = false;
        if (this.restart && restarted) {
          this.restarts++;
          this.log(
            'info',
            'stealth core restarted as asked: open connections of ended customers are closed, users loaded again',
            {
              users: this.users.size,
              failed,
              interruptedMs: this.now() - this.restart.at,
              loadMs: this.now() - started,
            },
          );
          this.restart = undefined;
        } else {
          this.log('info', restarted ? 'stealth core restarted: users loaded again' : 'stealth users loaded', {
            users: this.users.size,
            staleRemoved: stale.length,
            failed,
            ms: this.now() - started,
          });
        }
        return;
      }
      this.restartOverdue();
      for (const o of [...this.dirty]) await this.syncOwner(o, true);
      await this.forget();
    });
  }

  /** A restart asked for that did not happen: said once, and asked again after the gap if connections still move. */
  private restartOverdue(): void {
    if (!this.restart || this.now() - this.restart.at < WATCH.restartTimeoutMs) return;
    this.log(
      'error',
      'stealth: the core did not restart when asked; open connections of ended customers run until idle (is warren-stealth-restart.path running?)',
      { file: this.c.restartFile, askedMsAgo: this.now() - this.restart.at },
    );
    this.restart = undefined;
  }

  private startWatching(): void {
    if (this.watching || this.stopped || this.watched.size === 0) return;
    this.watching = true;
    const loop = () => {
      void this.sample().finally(() => {
        if (this.stopped || this.watched.size === 0) {
          this.watching = false;
          this.watchTimer = undefined;
        } else this.watchTimer = setTimeout(loop, WATCH.everyMs);
      });
    };
    this.watchTimer = setTimeout(loop, WATCH.everyMs);
  }

  /** Adds counters to the pending bytes; marks watched emails that moved after their grace. */
  private absorb(stats: Map<string, { up: number; down: number }>, at: number): void {
    for (const [email, s] of stats) {
      const owner = ownerOfStealthEmail(email);
      if (owner === null || (s.up === 0 && s.down === 0)) continue;
      const e = this.pending.get(owner) ?? { rx: 0, tx: 0 };
      // The node's view, as WireGuard reports it: rx = from the customer (uplink), tx = to them.
      e.rx += s.up;
      e.tx += s.down;
      this.pending.set(owner, e);
      this.lastActive.set(email, at);
      const w = this.watched.get(email);
      if (w && at - w.since >= WATCH.graceMs) w.live = true;
    }
  }

  /** Reads the counters of the removed credentials; restarts the core when one still has an open connection. */
  sample(): Promise<void> {
    return this.serial(async () => {
      const at = this.now();
      for (const [email, w] of this.watched) {
        if (at - w.since > WATCH.forMs) {
          this.watched.delete(email);
          continue;
        }
        try {
          this.absorb(await this.core.takeUserStats(email), at);
        } catch {
          /* the core is down or restarting: the check sees it */
        }
      }
      const live = [...this.watched].filter(([, w]) => w.live);
      if (!live.length || this.restart || at - this.lastRestartAt < WATCH.restartGapMs) return;
      const owners = [...new Set(live.map(([, w]) => w.owner))];
      this.restart = { at, owners };
      this.lastRestartAt = at;
      const reason = `${owners.length} customer(s) whose access ended still have open connections`;
      this.log('warn', `stealth: restarting the core: ${reason}`, {
        owners,
        sinceRemovalMs: Math.max(...live.map(([, w]) => at - w.since)),
        users: this.users.size,
      });
      try {
        await this.restartCore(reason);
      } catch (err) {
        this.log('error', 'stealth: cannot ask for a core restart', {
          file: this.c.restartFile,
          error: (err as Error).message.slice(0, 200),
        });
        this.restart = undefined;
        return;
      }
      // Look at the core often until it is back, so the others wait as little as possible.
      if (this.timer) {
        clearTimeout(this.timer);
        this.timer = setTimeout(this.checkLoop, WATCH.restartCheckMs);
      }
    });
  }

  /**
   * Credentials that moved bytes in the last 3 minutes (what a WireGuard session is on this node: a
   * handshake in the last 3 minutes). The core counts bytes, not connections; the counters are read
   * at each report and when a removed credential is watched. Only the time is kept, per credential.
   */
  activeSessions(): number {
    const since = this.now() - ACTIVE_MS;
    for (const [email, at] of this.lastActive) if (at < since) this.lastActive.delete(email);
    return this.lastActive.size;
  }

  /** The report's part: the core's status and the bytes counted since the last accepted report. */
  async collect(): Promise<Pick<NodeReport, 'stealth' | 'stealthTraffic'>> {
    if (this.up) {
      await this.serial(async () => {
        try {
          this.absorb(await this.core.takeUserStats(), this.now());
        } catch (err) {
          this.log('warn', 'stealth: counters unreadable', { error: (err as Error).message.slice(0, 200) });
        }
      });
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
    this.sent = new Map([...this.pending].map(([o, b]) => [o, { ...b }]));
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
    return {
      up: this.up,
      users: this.users.size,
      dirty: this.dirty.size,
      version: this.version,
      watched: this.watched.size,
      restarts: this.restarts,
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.watchTimer) clearTimeout(this.watchTimer);
    await this.chain;
    await Promise.all(this.servers.map((s) => new Promise((r) => s.close(r))));
    this.core.close();
  }
}

/** The state file: `{ emails: { owner: [email…] } }`; an older agent's list of owners means their `u<owner>` emails. */
async function readKnown(file: string): Promise<Map<number, Set<string>>> {
  const out = new Map<number, Set<string>>();
  let j: unknown;
  try {
    j = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch {
    return out; // none yet
  }
  if (Array.isArray(j)) {
    for (const n of j) if (Number.isInteger(n) && n > 0) out.set(n, new Set([stealthEmail(n)]));
  } else if (j && typeof j === 'object' && 'emails' in j && j.emails && typeof j.emails === 'object') {
    for (const [k, v] of Object.entries(j.emails as Record<string, unknown>)) {
      const owner = Number(k);
      if (!Number.isInteger(owner) || owner <= 0 || !Array.isArray(v)) continue;
      const emails = v.filter((e): e is string => typeof e === 'string' && ownerOfStealthEmail(e) === owner);
      if (emails.length) out.set(owner, new Set(emails));
    }
  }
  return out;
}
