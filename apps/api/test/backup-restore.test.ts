import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startAdminChannel } from '../src/admin/channel.js';
import { buildApp } from '../src/app.js';
import { runCli, runCommand } from '../src/cli/index.js';
import { runOnServer } from '../src/cli/remote.js';
import { loadConfig } from '../src/config.js';
import { type Database, type Queryable, embeddedBackupOf, openDatabase, restoreEmbedded } from '../src/db/client.js';
import { NewerDatabaseError, migrate } from '../src/db/migrate.js';

// Backups, restore and upgrades (README: Backups, restore and upgrades). Embedded: `npx warren db
// backup` asks the running server for a consistent copy while writes are in flight, `db restore`
// unpacks it into another DATA_DIR; PostgreSQL: pg_dump under the same load, pg_restore into
// another database. Either way every account, device, payment and staff audit row committed
// before the backup is found again, exactly, and no transaction is found half. The upgrade test
// starts a database at an older schema, with data, under the current release.

const pgUrl = process.env.TEST_DATABASE_URL;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-backup-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const MIGRATIONS = path.join(import.meta.dirname, '../src/db/migrations');

type Row = Record<string, unknown>;
/** The rows that must survive, by table, as JSON text (exact comparison, every column). */
const TABLES = { users: 'id', wg_devices: 'id', payments: 'id', staff_audit: 'id' } as const;
async function snapshot(db: Queryable): Promise<Record<string, Map<string, string>>> {
  const out: Record<string, Map<string, string>> = {};
  for (const [table, key] of Object.entries(TABLES)) {
    const rows = await db.query<Row>(`select * from ${table} order by ${key}`);
    out[table] = new Map(rows.map((r) => [String(r[key]), JSON.stringify(r)]));
  }
  return out;
}

/** Accounts with a device, a paid payment and a staff audit row each, in the schema of today. */
async function seed(db: Database, prefix: string, count: number): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(
      `insert into users (email, password_hash, brand, verified, tariff_key, tariff_name, subscription_expires_at)
      select '${prefix}' || g || '@customers.test', 'argon2-hash-' || g, 'warren-vpn', true, '1-month', '1 Month', now() + interval '30 days' from generate_series(1, $1::int) g`,
      [count],
    );
    await tx.query(`insert into wg_devices (user_id, name, public_key, addr_index)
      select u.id, 'laptop', encode(sha256(u.email::bytea), 'base64'), (select coalesce(max(addr_index), 0) from wg_devices) + row_number() over (order by u.id)
        from users u where u.email like '${prefix}%'`);
    await tx.query(`insert into payments (public_id, user_id, tariff_id, currency, amount_minor, price_list, provider, provider_ref, status, idempotency_key, applied, paid_at)
      select 'pay-' || u.id, u.id, (select min(id) from tariffs where not is_free), 'USD', 999, 'default', 'sandbox', 'ref-' || u.id, 'succeeded', 'idem-' || u.id, true, now()
        from users u where u.email like '${prefix}%'`);
    await tx.query(`insert into staff_audit (actor, role, action, target_user_id, detail)
      select 'operator (CLI)', 'admin', 'grant', u.id, '{"days": 30}'::jsonb from users u where u.email like '${prefix}%' order by u.id`);
  });
}

/**
 * Writes in flight: each transaction makes one account with its payment and audit row. Returns
 * the emails committed, in order, and a stop function; a backup must hold each whole or not at all.
 */
function writeLoad(db: Database) {
  const committed: string[] = [];
  const state: { error?: Error } = {};
  let stop = false;
  let n = 0;
  const worker = async (w: number) => {
    while (!stop && !state.error) {
      const email = `load-${w}-${n++}@customers.test`;
      try {
        await db.transaction(async (tx) => {
          const [u] = await tx.query<{ id: number }>(
            `insert into users (email, password_hash, brand) values ($1, 'h', 'warren-vpn') returning id`,
            [email],
          );
          await tx.query(
            `insert into payments (public_id, user_id, tariff_id, currency, amount_minor, price_list, provider, status, idempotency_key)
            values ($1, $2, (select min(id) from tariffs where not is_free), 'EUR', 499, 'default', 'sandbox', 'succeeded', $1)`,
            [`load-${u!.id}`, u!.id],
          );
          await tx.query(`insert into staff_audit (actor, action, target_user_id) values ('load', 'grant', $1)`, [
            u!.id,
          ]);
        });
      } catch (err) {
        state.error = err as Error;
        return;
      }
      committed.push(email);
      // As requests arrive over sockets: PGlite answers in microtasks, so writers that never wait
      // for I/O would starve every timer and socket of the process (the admin channel among them).
      await new Promise((r) => setImmediate(r));
    }
  };
  const workers = [0, 1, 2].map(worker);
  return {
    committed,
    state,
    /** Until `count` accounts are committed (or a writer failed: the test then says why). */
    async until(count: number) {
      while (committed.length < count && !state.error) await new Promise((r) => setImmediate(r));
      expect(state.error).toBeUndefined();
    },
    async stop() {
      stop = true;
      await Promise.all(workers);
    },
  };
}

/** Every row of `before` is in `after`, unchanged; every row of `after` is one the source has now (nothing invented). */
function expectRestored(
  before: Record<string, Map<string, string>>,
  restored: Record<string, Map<string, string>>,
  sourceNow: Record<string, Map<string, string>>,
) {
  for (const table of Object.keys(TABLES)) {
    const missing = [...before[table]!].filter(([id, row]) => restored[table]!.get(id) !== row);
    expect(missing.map(([id]) => `${table} ${id}`)).toEqual([]);
    const invented = [...restored[table]!].filter(([id, row]) => sourceNow[table]!.get(id) !== row);
    expect(invented.map(([id]) => `${table} ${id}`)).toEqual([]);
  }
  // No transaction half: each load account restored has its payment and its audit row.
  const loadUsers = [...restored.users!.values()]
    .map((r) => JSON.parse(r) as { id: number; email: string })
    .filter((u) => u.email.startsWith('load-'));
  const paid = new Set([...restored.payments!.values()].map((r) => (JSON.parse(r) as { user_id: number }).user_id));
  const audited = new Set(
    [...restored.staff_audit!.values()].map((r) => (JSON.parse(r) as { target_user_id: number }).target_user_id),
  );
  expect(loadUsers.filter((u) => !paid.has(u.id) || !audited.has(u.id))).toEqual([]);
  return loadUsers.length;
}

const quietConfig = (env: Record<string, string>) =>
  loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', JOBS: 'false', ...env });

/** `npx warren …` as an operator runs it, with DATA_DIR (and nothing else) pointing at a deployment. */
async function cli(dataDir: string, ...argv: string[]): Promise<{ code: number; out: string }> {
  const saved = {
    DATA_DIR: process.env.DATA_DIR,
    ADMIN_SOCKET: process.env.ADMIN_SOCKET,
    DATABASE_URL: process.env.DATABASE_URL,
  };
  process.env.DATA_DIR = dataDir;
  delete process.env.ADMIN_SOCKET;
  delete process.env.DATABASE_URL;
  const lines: string[] = [];
  try {
    const code = await runCli(
      argv,
      (l) => lines.push(l),
      (l) => lines.push(l),
    );
    return { code, out: lines.join('\n') };
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}

const staffVerify = async (app: FastifyInstance) => {
  const lines: string[] = [];
  const code = await runCommand(['staff', 'audit', 'verify'], {
    db: app.db,
    config: app.services.config,
    services: async () => app.services,
    print: (l) => lines.push(l),
  });
  return { code, out: lines.join('\n') };
};

describe.skipIf(!!pgUrl)('embedded database (PGlite): npx warren db backup while it runs, db restore elsewhere', () => {
  it('restores every account, device, payment and audit row committed before the backup, no transaction half; refuses a database in use, a non-empty DATA_DIR, a file that is not a backup and a newer release', async () => {
    // A running deployment as `npm start` has it: the database in DATA_DIR/pglite (started from the
    // migrated template to save its 3 s of initdb: this is `db restore` too), the admin channel on.
    const source = path.join(tmp, 'source');
    const template = process.env.WARREN_PGLITE_TEMPLATE!;
    await (await restoreEmbedded(path.join(source, 'pglite'), fs.readFileSync(template))).close();
    const config = quietConfig({ DATA_DIR: source });
    const app = await buildApp(config);
    const log = { info: () => {}, warn: () => {}, error: () => {} };
    const channel = (await startAdminChannel(app.services, config.admin!, log))!;
    let load: ReturnType<typeof writeLoad> | undefined;
    try {
      await seed(app.db, 'seeded-', 300);
      load = writeLoad(app.db);
      await load.until(10);
      const before = await snapshot(app.db); // everything here was committed before the backup began
      const file = path.join(tmp, 'warren.backup');
      const lines: string[] = [];
      const atStart = load.committed.length;
      const code = await runOnServer(
        config.admin,
        ['db', 'backup', '--file', file],
        (l) => lines.push(l),
        () => {},
      );
      await load.stop();
      expect({ code, out: lines.join('\n') }).toMatchObject({
        code: 0,
        out: expect.stringMatching(/^Backup written: .*warren\.backup \(\d+ bytes, schema \d{4}_/),
      });
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(load.committed.length).toBeGreaterThan(atStart); // writers were in flight through the backup
      const sourceNow = await snapshot(app.db);

      // Attack: a second backup onto the same file; a restore while the server runs.
      const again = await runOnServer(
        config.admin,
        ['db', 'backup', '--file', file],
        (l) => lines.push(l),
        () => {},
      );
      expect(again).toBe(1);
      expect(lines.at(-1)).toMatch(/exists: a backup never overwrites a file/);
      expect(await cli(source, 'db', 'restore', '--file', file)).toEqual({
        code: 1,
        out: expect.stringMatching(/a server is running on this DATA_DIR/),
      });

      // Restored elsewhere, started with the current release: everything is there.
      const target = path.join(tmp, 'target');
      const restored = await cli(target, 'db', 'restore', '--file', file);
      expect(restored).toMatchObject({
        code: 0,
        out: expect.stringMatching(
          /Restored .* into .*target\/pglite: \d+ accounts, \d+ WireGuard devices, \d+ payments, \d+ staff audit rows; schema \d{4}_\w+\.\w+\./,
        ),
      });
      expect(fs.statSync(path.join(target, 'pglite')).mode & 0o777).toBe(0o700);
      const copy = await buildApp(quietConfig({ DATA_DIR: target }));
      try {
        const loadRestored = expectRestored(before, await snapshot(copy.db), sourceNow);
        expect(loadRestored).toBeGreaterThanOrEqual(10);
        expect(await staffVerify(copy)).toMatchObject({ code: 0 });
      } finally {
        await copy.close();
      }

      // Attack: restore into that DATA_DIR again (a database is there): refused, nothing changed.
      const over = await cli(target, 'db', 'restore', '--file', file);
      expect(over).toEqual({
        code: 1,
        out: expect.stringMatching(
          /target\/pglite already holds a database: restore into a new DATA_DIR, or move .* away first \(nothing was changed\)/,
        ),
      });
      // Attack: a file that is not a backup: refused, nothing left behind.
      const junk = path.join(tmp, 'junk.backup');
      fs.writeFileSync(junk, 'PGDMP not a PGlite backup at all');
      const other = path.join(tmp, 'other');
      expect(await cli(other, 'db', 'restore', '--file', junk)).toEqual({
        code: 1,
        out: expect.stringMatching(/is not a backup of Warren's embedded database .* nothing was restored/),
      });
      expect(fs.readdirSync(path.join(other, 'pglite'))).toEqual([]);
      expect(fs.existsSync(path.join(other, 'warren.lock'))).toBe(false);
      // Attack: a backup made by a newer release (a migration this one lacks): refused, nothing left.
      await app.db.query(`insert into schema_migrations (name) values ('9999_from_a_newer_release.sql')`);
      const newer = path.join(tmp, 'newer.backup');
      expect(
        await runOnServer(
          config.admin,
          ['db', 'backup', '--file', newer],
          () => {},
          () => {},
        ),
      ).toBe(0);
      const later = path.join(tmp, 'later');
      expect(await cli(later, 'db', 'restore', '--file', newer)).toEqual({
        code: 1,
        out: expect.stringMatching(
          /comes from a newer Warren \(9999_from_a_newer_release\.sql\): restore it with that release or a newer one; nothing was restored/,
        ),
      });
      expect(fs.existsSync(path.join(later, 'pglite'))).toBe(false);
      // And the current release will not start on such a database either.
      await expect(migrate(app.db)).rejects.toThrow(NewerDatabaseError);
    } finally {
      await load?.stop();
      await channel.close();
      await app.close();
    }
  }, 240_000);
});

describe.skipIf(!pgUrl)('PostgreSQL: pg_dump while it runs, pg_restore into another database', () => {
  const schema = `backup_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const restoreDb = `warren_restore_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const urlOf = (dbName: string) => {
    const u = new URL(pgUrl!);
    u.pathname = `/${dbName}`;
    return u.toString();
  };
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  const run = (cmd: string, args: string[]) =>
    new Promise<{ code: number; out: string }>((resolve) =>
      execFile(cmd, args, (err, stdout, stderr) =>
        resolve({ code: err ? Number(err.code ?? 1) : 0, out: `${stdout}${stderr}` }),
      ),
    );
  afterAll(async () => {
    await admin(`drop schema if exists ${schema} cascade`);
    await admin(`drop database if exists ${restoreDb} with (force)`);
  });

  it('finds every account, device, payment and audit row committed before the dump, no transaction half; pg_restore refuses a database that is not empty', async () => {
    const app = await buildApp(
      quietConfig({ DATA_DIR: path.join(tmp, 'pg-source'), DATABASE_URL: pgUrl!, DATABASE_SCHEMA: schema }),
    );
    const file = path.join(tmp, 'warren.pgdump');
    let load: ReturnType<typeof writeLoad> | undefined;
    try {
      await seed(app.db, 'seeded-', 300);
      load = writeLoad(app.db);
      await load.until(10);
      const before = await snapshot(app.db);
      // The README's command: the schema, the job engine's beside it, and the extension the schema's
      // indexes use (it lives in public, outside --schema: without it pg_restore fails on the first trigram index).
      const atDumpStart = load.committed.length;
      const dump = await run('pg_dump', [
        '--format=custom',
        '--no-owner',
        `--schema=${schema}`,
        `--schema=${schema}_jobs`,
        '--extension=pg_trgm',
        `--file=${file}`,
        `--dbname=${pgUrl}`,
      ]);
      const atEnd = load.committed.length;
      await load.stop();
      expect(dump).toEqual({ code: 0, out: '' });
      expect(atEnd).toBeGreaterThan(atDumpStart); // writers committed while pg_dump ran
      const sourceNow = await snapshot(app.db);

      await admin(`create database ${restoreDb}`);
      const restore = await run('pg_restore', [
        '--no-owner',
        '--exit-on-error',
        '--single-transaction',
        `--dbname=${urlOf(restoreDb)}`,
        file,
      ]);
      expect(restore).toEqual({ code: 0, out: '' });
      const copy = await buildApp(
        quietConfig({ DATA_DIR: path.join(tmp, 'pg-target'), DATABASE_URL: urlOf(restoreDb), DATABASE_SCHEMA: schema }),
      );
      try {
        expect(expectRestored(before, await snapshot(copy.db), sourceNow)).toBeGreaterThanOrEqual(10);
        expect(await staffVerify(copy)).toMatchObject({ code: 0 });
        // Attack: the same dump restored over it: refused whole (one transaction), nothing changed.
        const countBefore = (await copy.db.query<{ n: number }>('select count(*)::int as n from users'))[0]!.n;
        const over = await run('pg_restore', [
          '--no-owner',
          '--exit-on-error',
          '--single-transaction',
          `--dbname=${urlOf(restoreDb)}`,
          file,
        ]);
        expect(over.code).not.toBe(0);
        expect(over.out).toMatch(/already exists/);
        expect((await copy.db.query<{ n: number }>('select count(*)::int as n from users'))[0]!.n).toBe(countBefore);
      } finally {
        await copy.close();
      }
    } finally {
      await load?.stop();
      await app.close();
    }
  }, 240_000);
});

describe('upgrade: a database at an older schema, with data, under the current release', () => {
  const OLD = '0012_staff.sql';
  const schema = `upgrade_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  afterAll(async () => {
    if (!pgUrl) return;
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    await c.query(`drop schema if exists ${schema} cascade`);
    await c.end();
  });

  it(`migrates a database last migrated by ${OLD}: every row kept, the later migrations' bookkeeping built from it`, async () => {
    const oldDir = path.join(tmp, 'old-migrations');
    fs.mkdirSync(oldDir);
    const older = fs.readdirSync(MIGRATIONS).filter((f) => f.endsWith('.sql') && f <= OLD);
    expect(older.at(-1)).toBe(OLD);
    for (const f of older) fs.copyFileSync(path.join(MIGRATIONS, f), path.join(oldDir, f));

    // The older release's database, with its data written in its own schema's shape.
    const spec = pgUrl
      ? ({ kind: 'postgres', url: pgUrl, schema } as const)
      : ({ kind: 'pglite', dataDir: path.join(tmp, 'old', 'pglite') } as const);
    const db = await openDatabase(spec);
    await migrate(db, oldDir);
    await db.query(
      `insert into tariffs (id, key, name, period_days) values (2, '1-month', '1 Month', 30) on conflict do nothing`,
    );
    await seed(db, 'old-', 50);
    const before = await snapshot(db);
    const backup = await embeddedBackupOf(db);
    await db.close();

    // The current release starts on it.
    const app = await buildApp(
      quietConfig(
        pgUrl
          ? { DATA_DIR: path.join(tmp, 'old'), DATABASE_URL: pgUrl, DATABASE_SCHEMA: schema }
          : { DATA_DIR: path.join(tmp, 'old') },
      ),
    );
    try {
      const after = await snapshot(app.db);
      for (const table of ['users', 'wg_devices', 'payments'] as const) {
        expect([...before[table]!.keys()]).toEqual([...after[table]!.keys()]);
        for (const [id, row] of before[table]!)
          expect(JSON.parse(after[table]!.get(id)!), `${table} ${id}`).toMatchObject(JSON.parse(row) as Row);
      }
      // Audit rows from before the hash chain (0014) are chained, and the chain verifies.
      expect([...after.staff_audit!.keys()]).toEqual([...before.staff_audit!.keys()]);
      expect(await staffVerify(app)).toMatchObject({ code: 0 });
      // The address pool (0018) was built from the devices that existed: a new device gets the next index.
      const [high] = await app.db.query<{ next_index: number }>('select next_index from wg_address_high');
      expect(high!.next_index).toBe(51);
      const applied = await app.db.query<{ name: string }>('select name from schema_migrations order by name');
      expect(applied.map((r) => r.name)).toEqual(
        fs
          .readdirSync(MIGRATIONS)
          .filter((f) => f.endsWith('.sql'))
          .sort(),
      );
    } finally {
      await app.close();
    }

    // An embedded backup from that older release restores and is upgraded on the way.
    if (backup) {
      const file = path.join(tmp, 'old.backup');
      fs.writeFileSync(file, backup);
      const restored = await cli(path.join(tmp, 'old-restored'), 'db', 'restore', '--file', file);
      expect(restored).toMatchObject({
        code: 0,
        out: expect.stringMatching(
          /50 accounts, 50 WireGuard devices, 50 payments, 50 staff audit rows; schema .* \(upgraded from the backup's by 0014_staff_audit_chain\.sql, .*\)/,
        ),
      });
    }
  }, 240_000);
});
