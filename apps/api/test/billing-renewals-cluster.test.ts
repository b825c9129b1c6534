import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { TestClient, registerUser } from './helpers.js';

/**
 * Renewals across several API instances and processes on one PostgreSQL database: the renewal
 * pass run at once by two instances (and again), then by two CLI processes
 * (`warren billing renew-due --as-of`) at once, charges every member exactly once per period.
 */
const url = process.env.TEST_DATABASE_URL;
const run = promisify(execFile);
const DAY = 86_400_000;
const schema = `rc_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const dataDirs: string[] = [];
let a: FastifyInstance;
let b: FastifyInstance;

async function instance(): Promise<FastifyInstance> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-rc-'));
  dataDirs.push(dataDir);
  return buildApp(
    loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
      DATABASE_URL: url!,
      DATABASE_SCHEMA: schema,
      JOBS: 'false',
    }),
  );
}

describe.skipIf(!url)('renewals on two instances and two processes (PostgreSQL)', () => {
  beforeAll(async () => {
    a = await instance();
    b = await instance();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.query(`drop schema if exists ${schema}_jobs cascade`);
    await client.end();
    for (const d of dataDirs) fs.rmSync(d, { recursive: true, force: true });
  });

  async function buyer(app: FastifyInstance) {
    const c = new TestClient(app);
    const { user } = await registerUser(c);
    await app.db.query(`update users set verified = true, account_status = 'Active' where id = $1`, [user.id]);
    const res = await c.post('/api/billing/createPayment', {
      tariffId: 2,
      currency: 'USD',
      provider: 'sandbox',
      returnPath: '/thank-you',
      autoRenew: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    const sandboxId = new URL(res.json().data.redirectUrl as string).pathname.split('/').pop()!;
    await app.inject({
      method: 'POST',
      url: `/sandbox/checkout/${sandboxId}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'outcome=pay',
    });
    return user.id as number;
  }
  const expiries = async (ids: number[]) =>
    (
      await a.db.query<{ id: number; e: Date }>(
        'select id, subscription_expires_at as e from users where id = any($1) order by id',
        [ids],
      )
    ).map((r) => new Date(r.e).getTime());
  const renewalsOf = async (ids: number[]) =>
    a.db.query<{ user_id: number; n: number; sandbox: number }>(
      `select p.user_id, count(*)::int as n, (select count(*)::int from sandbox_payments s join payments q on q.public_id = s.merchant_ref
         where q.user_id = p.user_id and q.kind = 'renewal' and s.status = 'paid') as sandbox
       from payments p where p.user_id = any($1) and p.kind = 'renewal' and p.status = 'succeeded' group by p.user_id order by p.user_id`,
      [ids],
    );

  it('charges each member once when two instances run the pass at once, and again', { timeout: 120_000 }, async () => {
    const ids = [await buyer(a), await buyer(b), await buyer(a), await buyer(b), await buyer(a)];
    const before = await expiries(ids);
    const asOf = new Date(Math.max(...before) - 3 * DAY + 60_000);
    // Everything at once: four passes on the two instances, and the renewal job of three members
    // worked directly (bypassing the queue's job ids) three times each across both instances.
    const direct = ids.slice(0, 3);
    const results = await Promise.all([
      a.services.jobs.runPass(asOf),
      b.services.jobs.runPass(asOf),
      a.services.jobs.runPass(asOf),
      b.services.jobs.runPass(asOf),
      ...direct.flatMap((id) => [
        a.services.billing.renewals.renewOne(id, asOf),
        b.services.billing.renewals.renewOne(id, asOf),
        b.services.billing.renewals.renewOne(id, asOf),
      ]),
    ]);
    const passes = results.slice(0, 4) as Awaited<ReturnType<typeof a.services.jobs.runPass>>[];
    const renewedByPass = passes
      .flatMap((r) => r.renewals)
      .filter((r) => r.outcome === 'renewed')
      .map((r) => r.userId);
    expect(ids.slice(3).every((id) => renewedByPass.includes(id))).toBe(true);
    // And again, later the same day: nothing more.
    await Promise.all([a.services.jobs.runPass(asOf), b.services.jobs.runPass(new Date(asOf.getTime() + 3600_000))]);
    expect(await renewalsOf(ids)).toEqual(ids.map((id) => ({ user_id: id, n: 1, sandbox: 1 })));
    expect(await expiries(ids)).toEqual(before.map((e) => e + 30 * DAY));
  });

  it(
    'charges each member once when two CLI processes run renew-due --as-of at once',
    { timeout: 180_000 },
    async () => {
      const ids = (
        await a.db.query<{ user_id: number }>(`select distinct user_id from payments where kind = 'renewal'`)
      )
        .map((r) => r.user_id)
        .sort((x, y) => x - y);
      const before = await expiries(ids);
      const asOf = new Date(Math.max(...before) - 3 * DAY + 60_000).toISOString();
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-rc-cli-'));
      dataDirs.push(dataDir);
      const env = {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        DATA_DIR: dataDir,
        DATABASE_URL: url!,
        DATABASE_SCHEMA: schema,
      };
      const cli = () =>
        run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'billing', 'renew-due', '--as-of', asOf], {
          cwd: path.resolve(import.meta.dirname, '..'),
          env,
        });
      const [one, two] = await Promise.all([cli(), cli()]);
      const attempts = [one.stdout, two.stdout].join('\n').match(/: renewed pay_/g) ?? [];
      expect(attempts.length).toBe(ids.length); // each member's job worked by one of the two processes
      expect(await renewalsOf(ids)).toEqual(ids.map((id) => ({ user_id: id, n: 2, sandbox: 2 })));
      expect(await expiries(ids)).toEqual(before.map((e) => e + 30 * DAY));
      const jobs = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'jobs', 'list', '--all'], {
        cwd: path.resolve(import.meta.dirname, '..'),
        env,
      });
      // One completed renewal job per member and period (the three renewed directly in the first period had none).
      expect(jobs.stdout.match(/billing-renew\s+completed/g)?.length).toBe(2 * ids.length - 3);
    },
  );
});
