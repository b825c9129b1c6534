import fs from 'node:fs';
import path from 'node:path';
import type { Database } from './client.js';

const MIGRATIONS_DIR = path.join(import.meta.dirname, 'migrations');
const MIGRATION_LOCK = 727_001;

/** The database has migrations this release does not have: it was migrated by a newer one. */
export class NewerDatabaseError extends Error {
  constructor(readonly unknown: string[]) {
    super(
      `the database was migrated by a newer Warren (${unknown.join(', ')} unknown to this release): run that release or a newer one; an older release never runs on a newer schema`,
    );
  }
}

/**
 * Applies every committed migration not yet applied, in file-name order, under one lock. Each file
 * runs whole, as the server parses it (so a migration may hold functions and triggers).
 */
export async function migrate(db: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  return db.exclusive(MIGRATION_LOCK, async (tx) => {
    await tx.query(
      'create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())',
    );
    const done = new Set((await tx.query<{ name: string }>('select name from schema_migrations')).map((r) => r.name));
    // A release older than the database would run on a schema it does not know (a restored newer
    // backup, a rollback after an upgrade): refused, nothing applied (README: Upgrades).
    const unknown = [...done].filter((name) => !files.includes(name)).sort();
    if (unknown.length) throw new NewerDatabaseError(unknown);
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      await tx.exec(fs.readFileSync(path.join(dir, file), 'utf8'));
      await tx.query('insert into schema_migrations (name) values ($1)', [file]);
      applied.push(file);
    }
    return applied;
  });
}

/** Whether this database was ever migrated (has Warren's schema): the CLI works only on one that was (issue 22). */
export async function isMigrated(db: Database): Promise<boolean> {
  const [row] = await db.query<{ ok: boolean }>(`select to_regclass('schema_migrations') is not null as ok`);
  return row?.ok === true;
}
