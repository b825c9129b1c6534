import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pg from 'pg';
import { DatabaseUnavailableError } from '../lib/errors.js';

export type Row = Record<string, unknown>;

/**
 * The one database interface the repositories see. Both PGlite (embedded default) and
 * PostgreSQL speak the same SQL, so the code and migrations are identical on both.
 */
export interface Queryable {
  query<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /**
   * Runs a whole SQL script (several statements, function bodies with semicolons) as the server
   * parses it: PGlite's exec, PostgreSQL's simple query protocol. No parameters: migrations only.
   */
  exec(sql: string): Promise<void>;
}

/** Told about every query run through `query` (also inside transactions): the metrics' query-time histogram. */
export type QueryObserver = (sql: string, seconds: number, ok: boolean) => void;

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Adds an observer of every query's duration; returns its removal. */
  observeQueries(observer: QueryObserver): () => void;
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs fn while holding a database-wide lock so concurrent instances don't race (migrations, seeding). */
  exclusive<T>(key: number, fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs fn while holding the lock named by two int4s (a kind and an id, e.g. one subscription),
   * shared by every instance on this database; fn uses the database as usual, without a
   * transaction (it may call a payment provider meanwhile). Not re-entrant: code that holds a
   * lock calls what needs it through variants that expect it held. PostgreSQL: a session
   * advisory lock on a connection of its own; PGlite: in this process (the only one that may
   * open its files). If the lock's connection is lost while fn runs, the lock is gone (another
   * instance may take it): `lock.signal` aborts then, so fn checks it before a step that must not
   * run twice at once (a provider charge) instead of going on unknowingly.
   */
  withLock<T>(key: readonly [number, number], fn: (lock: HeldLock) => Promise<T>): Promise<T>;
  /**
   * Calls onNotify with each NOTIFY payload on `channel` (a constant identifier) until the returned
   * stop is called. PostgreSQL: a connection of its own, reconnected after a loss; onNotify(null)
   * after each reconnection, since notifications sent meanwhile are lost. PGlite: nothing (one
   * process only). Never throws: a listener that cannot connect keeps trying (callers keep a
   * fallback, e.g. polling).
   */
  listen(channel: string, onNotify: (payload: string | null) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** Runs fn between acquire and the release acquire returned. */
/** What a holder of a withLock lock is given: `signal` aborts (with a DatabaseUnavailableError) once the lock is lost. */
export interface HeldLock {
  readonly signal: AbortSignal;
}

async function holding<T>(
  acquire: () => Promise<{ release: () => Promise<void>; signal: AbortSignal }>,
  fn: (lock: HeldLock) => Promise<T>,
): Promise<T> {
  const { release, signal } = await acquire();
  try {
    return await fn({ signal });
  } finally {
    await release();
  }
}

/** Runs a query and tells the observers how long it took (nothing is measured when none listens). */
async function timed<T>(observers: Set<QueryObserver>, sql: string, run: () => Promise<T>): Promise<T> {
  if (!observers.size) return run();
  const started = performance.now();
  const tell = (ok: boolean) => {
    const seconds = (performance.now() - started) / 1000;
    for (const o of observers) o(sql, seconds, ok);
  };
  try {
    const result = await run();
    tell(true);
    return result;
  } catch (err) {
    tell(false);
    throw err;
  }
}

const addObserver = (observers: Set<QueryObserver>, o: QueryObserver) => {
  observers.add(o);
  return () => void observers.delete(o);
};

/** PostgreSQL's contrib modules the migrations use, built into PGlite's WebAssembly (PostgreSQL has them installed). */
const PGLITE_EXTENSIONS = { pg_trgm };

class PgliteDatabase implements Database {
  readonly kind = 'pglite' as const;
  private readonly observers = new Set<QueryObserver>();
  private constructor(
    private readonly pg: PGlite,
    private readonly lockFile?: string,
  ) {}

  static async open(dataDir: string, templateFile?: string): Promise<PgliteDatabase> {
    if (dataDir === 'memory://') {
      // Tests start from a dump of an already migrated database: ~1 s instead of ~5 s per file.
      const loadDataDir = templateFile ? new Blob([fs.readFileSync(templateFile)]) : undefined;
      return new PgliteDatabase(
        await PGlite.create({ ...(loadDataDir ? { loadDataDir } : {}), extensions: PGLITE_EXTENSIONS }),
      );
    }
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // PGlite does not lock its directory; a second process opening it would corrupt it.
    const lockFile = path.join(path.dirname(dataDir), 'warren.lock');
    acquireLockFile(lockFile);
    try {
      return new PgliteDatabase(await PGlite.create({ dataDir, extensions: PGLITE_EXTENSIONS }), lockFile);
    } catch (err) {
      fs.rmSync(lockFile, { force: true });
      throw err;
    }
  }

  observeQueries(observer: QueryObserver): () => void {
    return addObserver(this.observers, observer);
  }

  async query<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    const result = await timed(this.observers, sql, () => this.pg.query<T>(sql, params as unknown[]));
    return result.rows;
  }

  async exec(sql: string): Promise<void> {
    await this.pg.exec(sql);
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    // PGlite serialises transactions on its single connection, so other queries wait meanwhile:
    // inside fn, query only through tx, never through the outer database (that would deadlock).
    return this.pg.transaction(async (tx) =>
      fn({
        query: async <R>(sql: string, params: readonly unknown[] = []) =>
          (await timed(this.observers, sql, () => tx.query<R>(sql, params as unknown[]))).rows,
        exec: async (sql: string) => void (await tx.exec(sql)),
      }),
    );
  }

  exclusive<T>(_key: number, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.transaction(fn);
  }

  /** The tail of each lock's queue: a waiter runs once the one before it released. */
  private readonly lockTails = new Map<string, Promise<void>>();

  withLock<T>(key: readonly [number, number], fn: (lock: HeldLock) => Promise<T>): Promise<T> {
    return holding(async () => {
      const name = key.join(':');
      const before = this.lockTails.get(name) ?? Promise.resolve();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const tail = before.then(() => gate);
      this.lockTails.set(name, tail);
      await before;
      // In this process: held until released, never lost.
      const signal = new AbortController().signal;
      return {
        signal,
        release: async () => {
          release();
          if (this.lockTails.get(name) === tail) this.lockTails.delete(name);
        },
      };
    }, fn);
  }

  /** Nothing to hear: only this process may open a PGlite database, and its writers wake their waiters themselves. */
  async listen(): Promise<() => Promise<void>> {
    return async () => undefined;
  }

  async close(): Promise<void> {
    await this.pg.close();
    if (this.lockFile) fs.rmSync(this.lockFile, { force: true });
  }

  /** The PGlite instance itself: its queries wait for this class's transactions (one connection). */
  get instance(): PGlite {
    return this.pg;
  }

  /** An uncompressed dump of the whole data directory (test templates). */
  async dump(): Promise<Buffer> {
    return Buffer.from(await (await this.pg.dumpDataDir('none')).arrayBuffer());
  }

  /**
   * A consistent copy of the running database (README: Backups): a checkpoint first, so the copy
   * needs little recovery, then the data directory as a gzipped tar while no query and no
   * transaction runs. PGlite's dumpDataDir alone takes only the query lock, so it could copy
   * between two statements of a transaction; its transaction lock (which pg-boss's adapter and
   * this class's transactions take too) keeps every transaction whole outside the copy.
   */
  async backup(): Promise<Buffer> {
    await this.pg.query('checkpoint');
    const tar = await this.pg._runExclusiveTransaction(() => this.pg.dumpDataDir('gzip'));
    return Buffer.from(await tar.arrayBuffer());
  }

  /**
   * Unpacks a backup made by backup() into an empty data directory and opens it (holding its lock
   * file, as open() does). Anything already there is refused: a restore never mixes databases.
   */
  static async restore(dataDir: string, backup: Buffer): Promise<PgliteDatabase> {
    if (fs.existsSync(dataDir) && fs.readdirSync(dataDir).length)
      throw new RestoreRefusedError(
        `${dataDir} already holds a database: restore into a new DATA_DIR, or move ${dataDir} away first (nothing was changed)`,
      );
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const lockFile = path.join(path.dirname(dataDir), 'warren.lock');
    acquireLockFile(lockFile);
    try {
      return new PgliteDatabase(
        await PGlite.create({ dataDir, loadDataDir: new Blob([backup]), extensions: PGLITE_EXTENSIONS }),
        lockFile,
      );
    } catch (err) {
      fs.rmSync(lockFile, { force: true });
      for (const entry of fs.readdirSync(dataDir))
        fs.rmSync(path.join(dataDir, entry), { recursive: true, force: true });
      throw new RestoreRefusedError(
        `the file is not a backup of Warren's embedded database (npx warren db backup), or one made with another PostgreSQL version inside PGlite (${(err as Error).message}); nothing was restored`,
      );
    }
  }
}

/** A restore that would mix databases or cannot read its file: nothing was changed. */
export class RestoreRefusedError extends Error {}

function acquireLockFile(lockFile: string): void {
  try {
    fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx', mode: 0o600 });
  } catch {
    const holder = Number(fs.readFileSync(lockFile, 'utf8'));
    if (holder && isAlive(holder) && holder !== process.pid) {
      throw new Error(
        `The data directory is in use by process ${holder} (${lockFile}). Stop it first, or use another DATA_DIR.`,
      );
    }
    fs.writeFileSync(lockFile, String(process.pid), { mode: 0o600 }); // stale lock from a crashed process
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// Postgres returns bigint and numeric as strings by default; our ids fit in 53 bits.
pg.types.setTypeParser(20, (v) => Number(v));

/** PostgreSQL's SQLSTATEs of a server that is going away, starting up or full (class 08: connection exceptions). */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** node-postgres's own words for a connection it lost, never had, or was told to drop. */
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect|Cannot use a pool after calling end/;

/**
 * Whether an error means the database could not be reached (restart, failover, a dead connection),
 * as opposed to a statement that failed: the first may succeed if sent again, the second never.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true;
  if (err instanceof AggregateError && err.errors.some(isDatabaseUnavailable)) return true;
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_ERRNOS.has(code) || /^08[0-9A-Z]{3}$/.test(code))
  )
    return true;
  return UNAVAILABLE_MESSAGES.test(err.message);
}

/** The typed domain error (503 + Retry-After, plugins/errors.ts) for a lost database; any other error as it is. */
const unavailable = (err: unknown) =>
  isDatabaseUnavailable(err) && !(err instanceof DatabaseUnavailableError)
    ? new DatabaseUnavailableError({ cause: err })
    : err;

/**
 * Runs fn again while the database is unavailable, for at most `forMs` (backing off to 1 s): for a
 * write that records what only this process knows at that moment (a provider's reference), so that a
 * restart of a second or two does not leave the row half-done. Any other error is thrown at once.
 */
export async function retryWhileUnavailable<T>(fn: () => Promise<T>, forMs = 10_000): Promise<T> {
  const deadline = Date.now() + forMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
    try {
      return await fn();
    } catch (err) {
      if (!isDatabaseUnavailable(err) || Date.now() + delay > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

async function reachable<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw unavailable(err);
  }
}

/**
 * Holds a pooled connection's 'error' event while the caller has it checked out. pg's pool listens
 * only on idle connections: a connection the server ends while a transaction or a lock holds it
 * emits 'error' with no listener, and Node ends the process (issue 22: every instance exited on a
 * PostgreSQL restart). The holder's next query fails instead, and release() discards the connection.
 */
function guardHeld(client: pg.PoolClient) {
  let lost: Error | undefined;
  const aborted = new AbortController();
  const onError = (err: Error) => {
    lost = err;
    // The session ended, and its advisory locks with it.
    aborted.abort(new DatabaseUnavailableError({ cause: err }));
  };
  const onEnd = () => onError(new Error('the lock connection ended'));
  client.on('error', onError);
  client.on('end', onEnd);
  return {
    get lost() {
      return lost;
    },
    signal: aborted.signal,
    release(err?: Error) {
      client.off('error', onError);
      client.off('end', onEnd);
      client.release(err ?? lost);
    },
  };
}

class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;
  private readonly observers = new Set<QueryObserver>();
  /** Connections that only hold session advisory locks (withLock), apart from the queries' pool: holders never starve fn of connections. */
  private lockPool?: pg.Pool;
  constructor(
    private readonly pool: pg.Pool,
    private readonly connect: pg.PoolConfig,
  ) {}

  observeQueries(observer: QueryObserver): () => void {
    return addObserver(this.observers, observer);
  }

  static async open(url: string, schema?: string, createSchema = true): Promise<PostgresDatabase> {
    const connect: pg.PoolConfig = {
      connectionString: url,
      options: schema ? `-c search_path=${schema}` : undefined,
      connectionTimeoutMillis: 5000,
      keepAlive: true,
    };
    const pool = new pg.Pool({ ...connect, max: 10 });
    // connect.connectionTimeoutMillis: a database that does not answer (a failover in progress) fails the request in seconds, not never.
    pool.on('error', () => {
      /* an idle client lost its connection; the pool replaces it and /api/health reports the outage */
    });
    // Instances starting together race on "if not exists" (a unique violation on pg_namespace): the schema exists then.
    if (schema && createSchema)
      await pool.query(`create schema if not exists ${schema}`).catch((err: { code?: string }) => {
        if (err.code !== '23505' && err.code !== '42P06') throw err;
      });
    return new PostgresDatabase(pool, connect);
  }

  async query<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    const result = await reachable(() => timed(this.observers, sql, () => this.pool.query(sql, params as unknown[])));
    return result.rows as T[];
  }

  async exec(sql: string): Promise<void> {
    await reachable(() => this.pool.query(sql)); // no parameters: pg uses the simple query protocol, which takes several statements
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await reachable(() => this.pool.connect());
    const held = guardHeld(client);
    try {
      await reachable(() => client.query('begin'));
      const result = await fn({
        query: async <R>(sql: string, params: readonly unknown[] = []) =>
          (await reachable(() => timed(this.observers, sql, () => client.query(sql, params as unknown[])))).rows as R[],
        exec: async (sql: string) => void (await reachable(() => client.query(sql))),
      });
      await reachable(() => client.query('commit'));
      return result;
    } catch (err) {
      if (!held.lost) await client.query('rollback').catch(() => undefined);
      throw unavailable(err);
    } finally {
      held.release();
    }
  }

  exclusive<T>(key: number, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.transaction(async (tx) => {
      await tx.query('select pg_advisory_xact_lock($1)', [key]);
      return fn(tx);
    });
  }

  withLock<T>(key: readonly [number, number], fn: (lock: HeldLock) => Promise<T>): Promise<T> {
    return holding(async () => {
      this.lockPool ??= new pg.Pool({ ...this.connect, max: 5 }).on('error', () => {
        /* a lost connection took its locks with it; the next lock gets a fresh one */
      });
      const lockPool = this.lockPool;
      const client = await reachable(() => lockPool.connect());
      const held = guardHeld(client);
      try {
        await reachable(() => client.query('select pg_advisory_lock($1, $2)', [...key]));
      } catch (err) {
        held.release(err as Error);
        throw err;
      }
      return {
        signal: held.signal,
        release: async () => {
          try {
            await client.query('select pg_advisory_unlock($1, $2)', [...key]);
            held.release();
          } catch (err) {
            held.release(err as Error); // closed: the session and its locks end with it
          }
        },
      };
    }, fn);
  }

  async listen(channel: string, onNotify: (payload: string | null) => void): Promise<() => Promise<void>> {
    let client: pg.Client | undefined;
    let stopped = false;
    let retry: NodeJS.Timeout | undefined;
    let failures = 0;
    const connect = async (): Promise<void> => {
      retry = undefined;
      if (stopped) return;
      const c = new pg.Client(this.connect);
      // A lost connection ends the client ('end' below reconnects); an unhandled 'error' would crash the process.
      c.on('error', () => undefined);
      c.on('notification', (m) => {
        if (m.channel === channel) onNotify(m.payload ?? '');
      });
      c.on('end', () => {
        if (client === c) client = undefined;
        if (!stopped) schedule();
      });
      try {
        await c.connect();
        await c.query(`listen ${c.escapeIdentifier(channel)}`);
      } catch {
        c.removeAllListeners('end');
        await c.end().catch(() => undefined);
        schedule();
        return;
      }
      if (stopped) return void (await c.end().catch(() => undefined));
      client = c;
      // Whatever was notified while no connection listened is lost: the caller checks once.
      if (failures > 0) onNotify(null);
      failures = 0;
    };
    const schedule = () => {
      if (stopped || retry) return;
      failures++;
      retry = setTimeout(() => void connect(), Math.min(30_000, 250 * 2 ** Math.min(failures, 7)));
      retry.unref();
    };
    await connect();
    return async () => {
      stopped = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    };
  }

  async close(): Promise<void> {
    await this.lockPool?.end();
    await this.pool.end();
  }
}

export async function openDatabase(
  spec: { kind: 'pglite'; dataDir: string; templateFile?: string } | { kind: 'postgres'; url: string; schema?: string },
  /** false: an existing database only (the CLI, issue 22): a PGlite data dir that is not one is refused, a missing schema not made. */
  create = true,
): Promise<Database> {
  if (spec.kind === 'pglite') {
    if (!create && !fs.existsSync(path.join(spec.dataDir, 'PG_VERSION')))
      throw new NoDatabaseError(`no database in ${spec.dataDir}`);
    return PgliteDatabase.open(spec.dataDir, spec.templateFile);
  }
  return PostgresDatabase.open(spec.url, spec.schema, create);
}

/** openDatabase(spec, false) found no database. */
export class NoDatabaseError extends Error {}

/** The embedded PGlite instance, for pg-boss's in-process adapter (modules/billing/jobs.ts); undefined for PostgreSQL. */
export function pgliteOf(db: Database): PGlite | undefined {
  return db instanceof PgliteDatabase ? db.instance : undefined;
}

/** A consistent backup of a running embedded database (PgliteDatabase.backup); undefined for PostgreSQL, whose tool is pg_dump. */
export function embeddedBackupOf(db: Database): Promise<Buffer> | undefined {
  return db instanceof PgliteDatabase ? db.backup() : undefined;
}

/** Restores an embedded backup into an empty data directory and opens it (PgliteDatabase.restore). */
export function restoreEmbedded(dataDir: string, backup: Buffer): Promise<Database> {
  return PgliteDatabase.restore(dataDir, backup);
}

/** Dumps a PGlite database (for test templates); undefined for PostgreSQL. */
export function dumpOf(db: Database): Promise<Buffer> | undefined {
  return db instanceof PgliteDatabase ? db.dump() : undefined;
}
