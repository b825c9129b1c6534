import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dumpOf, openDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';

/**
 * Migrates one in-memory PGlite once per run and dumps it; every test file then starts its own
 * database from that dump. Skipped on PostgreSQL (TEST_DATABASE_URL), where schemas are cheap.
 */
export default async function setup() {
  if (process.env.TEST_DATABASE_URL) return;
  const db = await openDatabase({ kind: 'pglite', dataDir: 'memory://' });
  await migrate(db);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'warren-template-')), 'pglite.tar');
  fs.writeFileSync(file, (await dumpOf(db))!);
  await db.close();
  process.env.WARREN_PGLITE_TEMPLATE = file;
  return () => fs.rmSync(path.dirname(file), { recursive: true, force: true });
}
