import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../src/cli/index.js';
import { type Database, openDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { chainVerifier, parseHead, personalHash, rowHash, type ChainRow } from '../src/modules/staff/audit-chain.js';
import { staffRepository } from '../src/modules/staff/index.js';
import { TestClient, createTestApp, registerUser, type TestApp } from './helpers.js';

/**
 * Issue 20, finding 6: the staff audit is a hash chain. The table's owner can still disable the
 * append-only trigger and rewrite rows; `npx warren staff audit verify` then names the first row
 * edited, inserted or missing, and the head exported at each write (metric, log line) shows the
 * newest rows deleted. Runs on PGlite, and on PostgreSQL when TEST_DATABASE_URL is set (real
 * parallel writers).
 */
let t: TestApp;
const logged: { seq: string; hash: string }[] = [];

beforeAll(async () => {
  t = await createTestApp(
    { JOBS: 'false', LOG_LEVEL: 'info' },
    {
      logStream: {
        write(line: string) {
          const entry = JSON.parse(line) as { msg?: string; staffAuditHead?: { seq: string; hash: string } };
          if (entry.msg === 'staff audit appended' && entry.staffAuditHead) logged.push(entry.staffAuditHead);
        },
      },
    },
  );
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const repo = () => staffRepository(t.app.db);
const write = (n: number, action = 'customer-view') =>
  Promise.all(
    Array.from({ length: n }, (_, i) =>
      repo().audit({
        actorUserId: 1,
        actor: `staff${i}@example.com`,
        role: 'admin',
        action,
        targetUserId: 1000 + i,
        target: `customer${i}@example.com`,
        detail: { i },
        ip: '203.0.113.9',
        userAgent: 'Console/1',
      }),
    ),
  );

async function verify(...args: string[]) {
  const lines: string[] = [];
  const code = await runCommand(['staff', 'audit', 'verify', ...args], {
    db: t.app.db,
    config: t.app.services.config,
    services: async () => t.app.services,
    print: (l) => lines.push(l),
  });
  return { code, out: lines.join('\n') };
}
/** What the owner of the table can do: step around the append-only trigger. */
async function asOwner(sql: string, params: unknown[] = []) {
  await t.app.db.transaction(async (tx) => {
    // Every trigger of ours off: the append-only guard, the chain, the head's guard.
    await tx.query('alter table staff_audit disable trigger user');
    await tx.query('alter table staff_audit_head disable trigger user');
    await tx.query(sql, params);
    await tx.query('alter table staff_audit enable trigger user');
    await tx.query('alter table staff_audit_head enable trigger user');
  });
}
const head = async () =>
  (await t.app.db.query<{ seq: string; hash: string }>('select seq::text as seq, hash from staff_audit_head'))[0]!;
const lastSeq = async () => Number((await head()).seq);

describe('the staff audit hash chain', () => {
  it('parallel writers keep one valid chain: seq 1..n without gaps, each row after the one before', async () => {
    const before = await lastSeq();
    await write(40);
    const rows = await t.app.db.query<{ seq: string }>(
      'select seq::text as seq from staff_audit order by staff_audit.seq',
    );
    expect(rows.map((r) => Number(r.seq))).toEqual(Array.from({ length: before + 40 }, (_, i) => i + 1));
    const ok = await verify();
    expect(ok.code, ok.out).toBe(0);
    expect(ok.out).toMatch(new RegExp(`OK: ${before + 40} rows`));
    // Each write is exported: the log line carries the head the database now holds.
    await registerUser(new TestClient(t.app), 'chain.member@example.com');
    await t.app.services.staff.grantRole('chain.member@example.com', 'support');
    expect(logged.at(-1)).toEqual(await head());
    expect(logged.at(-1)!.seq).toBe(String(before + 41));
  });

  it('the JavaScript verifier computes what the database wrote (the two encodings are one)', async () => {
    await write(1);
    const [r] = await t.app.db.query<ChainRow>(
      `select id::text, seq::text, ((extract(epoch from at) * 1000000)::bigint)::text as at_us, actor_user_id::text, role, action, target_user_id::text,
              detail::text as detail, personal_salt, personal_hash, prev_hash, row_hash, actor, target, ip, user_agent from staff_audit order by staff_audit.seq desc limit 1`,
    );
    expect(personalHash(r!)).toBe(r!.personal_hash);
    expect(rowHash(r!)).toBe(r!.row_hash);
  });

  it('an UPDATE or DELETE without the owner stepping around the trigger is still refused, the head too', async () => {
    await write(1);
    await expect(t.app.db.query(`update staff_audit set detail = '{"days": 3650}' where seq = 1`)).rejects.toThrow(
      /append-only/,
    );
    await expect(t.app.db.query(`delete from staff_audit where seq = 1`)).rejects.toThrow(/append-only/);
    await expect(t.app.db.query(`update staff_audit_head set seq = 1`)).rejects.toThrow(/audit chain only/);
    // Only the recorded pseudonymisation's shape passes: personal fields replaced, salt erased, nothing chained touched.
    await expect(
      t.app.db.query(`update staff_audit set ip = '', action = 'refund', personal_salt = null where seq = 1`),
    ).rejects.toThrow(/append-only/);
  });
});

describe('verify finds what the owner did', () => {
  // Each case works on a fresh app: the chain is broken on purpose.
  let own: TestApp;
  beforeAll(() => {
    own = t;
  });
  afterAll(() => {
    t = own;
  });
  const fresh = async () => {
    t = await createTestApp({ JOBS: 'false' });
    await write(6);
  };
  const done = async () => {
    await t.close();
    t = own;
  };

  it('a row edited through SQL: fails, naming the row', async () => {
    await fresh();
    try {
      await asOwner(`update staff_audit set detail = '{"days": 3650}' where seq = 3`);
      const edited = await verify();
      expect(edited.code).toBe(1);
      expect(edited.out).toMatch(/row seq 3 \(id \d+\) was edited/);
      expect(edited.out).not.toMatch(/row seq [1245]/);
      // An address or an actor edited is found the same way.
      await asOwner(`update staff_audit set ip = '198.51.100.1' where seq = 5`);
      expect((await verify()).out).toMatch(/row seq 5 \(id \d+\) was edited \(actor, target, address or user agent\)/);
    } finally {
      await done();
    }
  });

  it('a middle row deleted: fails, naming the missing seq', async () => {
    await fresh();
    try {
      await asOwner('delete from staff_audit where seq = 4');
      const res = await verify();
      expect(res.code).toBe(1);
      expect(res.out).toMatch(/row seq 4 is missing \(deleted\) before row seq 5/);
    } finally {
      await done();
    }
  });

  it('a row inserted in the middle (hashes forged with the public algorithm): fails at the row after it', async () => {
    await fresh();
    try {
      // The owner renumbers to make room and inserts a chained-looking row 4; row 5 (the old 4) no longer follows it.
      await asOwner(`update staff_audit set seq = seq + 100 where seq >= 4`);
      await asOwner(`update staff_audit set seq = seq - 99 where seq >= 100`);
      await asOwner(
        `insert into staff_audit (seq, actor, action, detail, personal_hash, prev_hash, row_hash, personal_salt)
         select 4, 'ghost', 'grant-days', '{}', staff_audit_personal_hash('s', 'ghost', '', '', ''), (select row_hash from staff_audit where seq = 3),
                staff_audit_row_hash(4, now(), null, null, 'grant-days', null, '{}', staff_audit_personal_hash('s', 'ghost', '', '', ''), (select row_hash from staff_audit where seq = 3)), 's'`,
      );
      const res = await verify();
      expect(res.code).toBe(1);
      expect(res.out).toMatch(/row seq [45] \(id \d+\) (does not follow|was edited)/);
    } finally {
      await done();
    }
  });

  it('the newest rows deleted (and the head table set back): only the exported head shows it, and it does', async () => {
    await fresh();
    try {
      const exported = await head();
      const scraped = await t.app.services.metrics.registry.getSingleMetricAsString('warren_staff_audit_head_seq');
      expect(scraped).toContain(`warren_staff_audit_head_seq ${exported.seq}`);
      await asOwner(`delete from staff_audit where seq >= 5`);
      await asOwner(`update staff_audit_head set seq = 4, hash = (select row_hash from staff_audit where seq = 4)`);
      // Alone, the shortened chain is a valid chain...
      expect((await verify()).code).toBe(0);
      // ...but not against the head exported before (the metric's seq, or the logged seq and hash).
      const bySeq = await verify('--head', exported.seq);
      expect(bySeq.code).toBe(1);
      expect(bySeq.out).toMatch(/rows seq 5–6 are missing: the exported head is seq 6, the chain ends at seq 4/);
      expect((await verify('--head', `${exported.seq}:${exported.hash}`)).code).toBe(1);
      // Without fixing the head table the deletion shows anyway.
      await asOwner(`delete from staff_audit where seq = 4`);
      expect((await verify()).out).toMatch(/the head table says seq 4/);
    } finally {
      await done();
    }
  });

  it('a chain rewritten from an edited row on (every later hash recomputed): the exported head hash differs', async () => {
    await fresh();
    try {
      const exported = await head();
      await asOwner(`update staff_audit set detail = '{"days": 3650}' where seq = 2`);
      // Recompute the rest of the chain the way the migration did.
      await asOwner(`do $$ declare r record; prev text := (select row_hash from staff_audit where seq = 1); begin
        for r in select * from staff_audit where seq >= 2 order by seq loop
          update staff_audit set prev_hash = prev, row_hash = staff_audit_row_hash(r.seq, r.at, r.actor_user_id, r.role, r.action, r.target_user_id, r.detail, r.personal_hash, prev) where id = r.id returning row_hash into prev;
        end loop;
        update staff_audit_head set hash = prev; end $$`);
      expect((await verify()).code).toBe(0);
      const res = await verify('--head', `${exported.seq}:${exported.hash.slice(0, 16)}`);
      expect(res.code).toBe(1);
      expect(res.out).toMatch(/row seq 6 \(id \d+\) differs from the exported head/);
    } finally {
      await done();
    }
  });

  it('personal fields erased by the recorded pseudonymisation pass; erased without a record, they fail', async () => {
    await fresh();
    try {
      // Every row of the fresh app was made by staff member 1 (about customers named by number only).
      const n = await repo().pseudonymiseAccount(1, 'account deleted');
      expect(n).toBe(6);
      const rows = await t.app.db.query<{
        actor: string;
        ip: string;
        user_agent: string;
        personal_salt: string | null;
      }>(`select actor, ip, user_agent, personal_salt from staff_audit where actor_user_id = 1`);
      expect(new Set(rows.map((r) => JSON.stringify(r)))).toEqual(
        new Set([JSON.stringify({ actor: 'deleted account 1', ip: '', user_agent: '', personal_salt: null })]),
      );
      const ok = await verify();
      expect(ok.code, ok.out).toBe(0);
      expect(ok.out).toMatch(/6 pseudonymised/);
      // A later row erased the same way but without a later chained record is an unrecorded erasure (no trigger stepped around: it is the allowed shape).
      await write(1);
      await t.app.db.query(
        `update staff_audit set actor = '', personal_salt = null where seq = (select max(seq) from staff_audit)`,
      );
      const bad = await verify();
      expect(bad.code).toBe(1);
      expect(bad.out).toMatch(/row seq \d+ \(id \d+\): personal fields erased with no later "pseudonymise" row/);
    } finally {
      await done();
    }
  });
});

describe('the retention of staff addresses', () => {
  it('erases the address and user agent of rows older than the cut-off, recorded by one chained row; newer rows keep theirs', async () => {
    await t.app.db.query(
      `insert into staff_audit (at, actor_user_id, actor, role, action, ip, user_agent) values (now() - interval '400 days', 1, 'old@example.com', 'admin', 'customer-view', '203.0.113.50', 'Old/1')`,
    );
    await write(1);
    const erased = await repo().expireAddresses(
      new Date(Date.now() - 365 * 86_400_000),
      'staff addresses are kept 365 days',
    );
    expect(erased).toBe(1);
    const rows = await t.app.db.query<{ ip: string; user_agent: string; actor: string }>(
      `select ip, user_agent, actor from staff_audit where ip = '203.0.113.50' or user_agent = 'Old/1' or actor = 'old@example.com'`,
    );
    expect(rows).toEqual([{ ip: '', user_agent: '', actor: 'old@example.com' }]);
    const [record] = await t.app.db.query<{ detail: { rows: number; before: string } }>(
      `select detail from staff_audit where action = 'pseudonymise' order by staff_audit.seq desc limit 1`,
    );
    expect(record!.detail.rows).toBe(1);
    expect(
      (await t.app.db.query(`select 1 from staff_audit where ip = '203.0.113.9' and at > now() - interval '1 day'`))
        .length,
    ).toBeGreaterThan(0);
    const ok = await verify();
    expect(ok.code, ok.out).toBe(0);
    // Nothing left to erase: no record either.
    expect(await repo().expireAddresses(new Date(Date.now() - 365 * 86_400_000), 'again')).toBe(0);
  });
});

describe('the pure verifier', () => {
  it('parses the head as SEQ or SEQ:HASH and refuses anything else', () => {
    expect(parseHead('12')).toEqual({ seq: 12n, hash: undefined });
    expect(parseHead('12:abcdef012345')).toEqual({ seq: 12n, hash: 'abcdef012345' });
    for (const bad of ['', 'x', '12:abc', '-1', '12:']) expect(parseHead(bad), bad).toBeUndefined();
  });
  it('an empty chain is valid, and below an exported head it is not', () => {
    expect(chainVerifier().finish().ok).toBe(true);
    expect(chainVerifier({ seq: 3n }).finish().problems[0]).toMatch(/rows seq 1–3 are missing/);
  });
});

describe('migration 0014', () => {
  it("chains the rows written before it, and drops customers' failed console sign-ins with their addresses", async () => {
    const url = process.env.TEST_DATABASE_URL;
    const schema = `t_chain_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const db: Database = await openDatabase(
      url ? { kind: 'postgres', url, schema } : { kind: 'pglite', dataDir: 'memory://' },
    );
    const all = path.join(import.meta.dirname, '../src/db/migrations');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-chain-'));
    try {
      for (const f of fs.readdirSync(all).filter((f) => f < '0014'))
        fs.copyFileSync(path.join(all, f), path.join(dir, f));
      await migrate(db, dir);
      await db.query(
        `insert into users (email, password_hash, brand) values ('member@example.com', 'x', 'warren-vpn'), ('customer@example.com', 'x', 'warren-vpn')`,
      );
      await db.query(
        `insert into staff_members (user_id, role) select id, 'admin' from users where email = 'member@example.com'`,
      );
      await db.query(
        `insert into staff_audit (actor, action, target, detail, ip, user_agent) values
           ('member@example.com', 'sign-in', 'member@example.com', '{}', '203.0.113.1', 'Console/1'),
           ('customer@example.com', 'sign-in-failed', 'customer@example.com', '{"why": "no-role"}', '198.51.100.7', 'Customer/1'),
           ('member@example.com', 'sign-in-failed', 'member@example.com', '{"why": "code"}', '198.51.100.8', 'Who/1'),
           ('member@example.com', 'grant-days', 'someone@example.com', '{"days": 3, "reason": "ünïcödé 中文"}', '203.0.113.1', 'Console/1')`,
      );
      await migrate(db, all);
      const rows = await db.query<ChainRow>(
        `select id::text, seq::text, ((extract(epoch from at) * 1000000)::bigint)::text as at_us, actor_user_id::text, role, action, target_user_id::text,
                detail::text as detail, personal_salt, personal_hash, prev_hash, row_hash, actor, target, ip, user_agent from staff_audit order by staff_audit.seq`,
      );
      expect(rows.map((r) => [r.seq, r.action, r.ip])).toEqual([
        ['1', 'sign-in', '203.0.113.1'],
        ['2', 'sign-in-failed', ''],
        ['3', 'grant-days', '203.0.113.1'],
      ]);
      const v = chainVerifier();
      v.feed(rows);
      const [stored] = await db.query<{ seq: string; hash: string }>(
        'select seq::text as seq, hash from staff_audit_head',
      );
      expect(v.finish(stored)).toMatchObject({ ok: true, rows: 3 });
      // New rows continue the migrated chain.
      await db.query(`insert into staff_audit (actor, action) values ('operator (CLI)', 'role-grant')`);
      const [next] = await db.query<{ seq: string; prev_hash: string }>(
        `select seq::text as seq, prev_hash from staff_audit where action = 'role-grant'`,
      );
      expect(next).toEqual({ seq: '4', prev_hash: rows[2]!.row_hash });
    } finally {
      if (url) await db.query(`drop schema if exists ${schema} cascade`);
      await db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
