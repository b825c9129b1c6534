import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from './client.js';
import { migrate } from './migrate.js';

// A migration holding a PL/pgSQL function and a trigger: semicolons inside the function body,
// which a runner that split files at semicolons would cut apart. Runs on PGlite and, when
// TEST_DATABASE_URL is set (CI's PostgreSQL pass), on the PostgreSQL server in a fresh schema.
const FUNCTION_AND_TRIGGER = `
create table notes (id serial primary key, body text not null, words int);
create function count_words() returns trigger language plpgsql as $$
begin
  new.words := coalesce(array_length(regexp_split_to_array(trim(new.body), '\\s+'), 1), 0);
  return new;
end;
$$;
create trigger notes_words before insert or update on notes for each row execute function count_words();
`;

describe('migrate', () => {
  let db: Database;
  let dir: string;
  const schema = `t_mig_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  beforeAll(async () => {
    const url = process.env.TEST_DATABASE_URL;
    db = await openDatabase(url ? { kind: 'postgres', url, schema } : { kind: 'pglite', dataDir: 'memory://' });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-migrations-'));
    fs.writeFileSync(path.join(dir, '0001_notes.sql'), FUNCTION_AND_TRIGGER);
  });
  afterAll(async () => {
    if (process.env.TEST_DATABASE_URL) await db.query(`drop schema if exists ${schema} cascade`);
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs each file whole, so a migration may hold functions and triggers', async () => {
    expect(await migrate(db, dir)).toEqual(['0001_notes.sql']);
    await db.query('insert into notes (body) values ($1)', ['a migration with a trigger; it works']);
    expect(await db.query('select words from notes')).toEqual([{ words: 7 }]);
  });

  it('applies a file once', async () => {
    expect(await migrate(db, dir)).toEqual([]);
  });

  it('applies nothing of a file that fails, and says which', async () => {
    fs.writeFileSync(
      path.join(dir, '0002_broken.sql'),
      'create table ok_part (id int);\ncreate tabel broken (id int);',
    );
    await expect(migrate(db, dir)).rejects.toThrow(/tabel/);
    expect(
      await db.query(`select count(*)::int as n from information_schema.tables where table_name = 'ok_part'`),
    ).toEqual([{ n: 0 }]);
  });

  it("the release's migrations each have their own number (engineers working at once took the same next one)", () => {
    const names = fs.readdirSync(path.join(import.meta.dirname, 'migrations')).filter((f) => f.endsWith('.sql'));
    const numbers = names.map((n) => n.split('_')[0]);
    expect(
      names.every((n) => /^\d{4}_[a-z0-9_]+\.sql$/.test(n)),
      names.join(' '),
    ).toBe(true);
    expect(numbers.filter((n, i) => numbers.indexOf(n) !== i)).toEqual([]);
  });
});
