import fs from 'node:fs';
import path from 'node:path';
import type { Database } from './client.js';

const MIGRATIONS_DIR = path.join(import.meta.dirname, 'migrations');
const MIGRATION_LOCK = 727_001;

/**
 * Applies every committed migration not yet applied, in file-name order, under one lock. Each file
 * runs whole, as the server parses it (so a migration may hold functions and triggers).
 */
export async function migrate(db: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.sql')).sort();
  return db.exclusive(MIGRATION_LOCK, async (tx) => {
    await tx.query('create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())');
    const done = new Set((await tx.query<{ name: string }>('select name from schema_migrations')).map((r) => r.name));
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
