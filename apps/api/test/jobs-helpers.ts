import pg from 'pg';
import type { TestApp } from './helpers.js';

/** On PostgreSQL the job engine keeps its tables in `<schema>_jobs`: dropped after the test's schema. */
export async function dropJobsSchema(app: TestApp | undefined) {
  const db = app?.config.database;
  if (db?.kind !== 'postgres' || !db.schema) return;
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query(`drop schema if exists ${db.schema}_jobs cascade`);
  await client.end();
}
