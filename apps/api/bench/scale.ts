/**
 * Data-scale bench (part of `npm run bench`; alone: `node --import tsx apps/api/bench/scale.ts`).
 *
 * The same calls against two schemas on the machine's PostgreSQL, side by side: one empty, one
 * seeded with SQL (generate_series, not through the API) with BENCH_SCALE_ACCOUNTS accounts
 * (200,000), 1.5 WireGuard devices and 3 payments per account. Prints p50/p99 for each and the
 * ratio data/empty (target ≤ 1.5x), then what grows with the data by nature: the node's full
 * state (time, size, this instance's event-loop lag meanwhile), a change on one instance reaching
 * a long poll on another (p50), and renewals per second with 1 worker, 4 at once and 3 instances
 * of 4. Both schemas (and their job schemas) are dropped at the end.
 *
 *   BENCH_SCALE_DATABASE_URL (else BENCH_DATABASE_URL, TEST_DATABASE_URL, postgres://postgres@127.0.0.1:5432/test)
 *   BENCH_SCALE_ACCOUNTS (200000) · BENCH_SCALE_SAMPLES (40) · BENCH_SCALE_RENEWALS (200)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import type { DesiredState } from '@warren/contract';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { jobEngine } from '../src/modules/billing/jobs.js';
import { totpCode } from '../src/lib/totp.js';
import { TestClient } from '../test/helpers.js';

const URL_ =
  process.env.BENCH_SCALE_DATABASE_URL ??
  process.env.BENCH_DATABASE_URL ??
  process.env.TEST_DATABASE_URL ??
  'postgres://postgres@127.0.0.1:5432/test';
const ACCOUNTS = Number(process.env.BENCH_SCALE_ACCOUNTS ?? 200_000);
const SAMPLES = Number(process.env.BENCH_SCALE_SAMPLES ?? 40);
const RENEWALS = Number(process.env.BENCH_SCALE_RENEWALS ?? 200);
const PASSWORD = 'correct horse battery staple';

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
const wgKey = () =>
  generateKeyPairSync('x25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
const log = (s: string) => process.stdout.write(s);

interface Side {
  name: 'empty' | 'data';
  schema: string;
  app: FastifyInstance;
  dataDir: string;
  customers: TestClient[];
  staff: TestClient;
  nodeToken: string;
}

async function open(
  schema: string,
  env: Record<string, string> = {},
): Promise<{ app: FastifyInstance; dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-scale-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    DATABASE_URL: URL_,
    DATABASE_SCHEMA: schema,
    JOBS: 'false',
    WG_DEVICE_LIMIT_PAID: '1000',
    LIMIT_LOGIN_PER_IP: String(2 ** 31),
    LIMIT_REGISTER_PER_IP: String(2 ** 31),
    APP_SECRET: 'scale-bench-secret-0123456789abcdef0123456789',
    ...env,
  });
  return { app: await buildApp(config), dataDir };
}

/** The seed: accounts, devices and payments written with SQL, triggers off (the address high-water mark set after). */
async function seed(app: FastifyInstance, accounts: number): Promise<void> {
  const devices = Math.round(accounts * 1.5);
  const [tariff] = await app.db.query<{ id: number; key: string; name: string }>(
    `select id, key, name from tariffs where period_days between 28 and 31 and not is_trial order by id limit 1`,
  );
  await app.db.transaction(async (tx) => {
    await tx.query(`set local session_replication_role = replica`);
    // A third pay monthly (expiring over the next 60 days), every 10th came by a referral code, every 15th by a friend's.
    await tx.query(
      `insert into users (email, password_hash, brand, verified, account_status, tariff_key, tariff_name, subscription_expires_at, attribution, created_at)
       select 'customer' || g || '@scale.invalid', '', 'warren-vpn', true, 'Active',
         case when g % 3 = 0 then $2 else 'free-plan' end, case when g % 3 = 0 then $3 else 'Free' end,
         case when g % 3 = 0 then now() + make_interval(hours => 1 + g % 1440) end,
         case when g % 10 = 0 then jsonb_build_object('referralID', 'ref' || (g % 997)) when g % 15 = 0 then jsonb_build_object('friendID', 'fr' || (g % 991)) else '{}'::jsonb end,
         now() - make_interval(mins => g)
       from generate_series(1, $1::int) g`,
      [accounts, tariff!.key, tariff!.name],
    );
    await tx.query(
      `insert into wg_devices (user_id, name, public_key, addr_index)
       select 1 + (g % $2::int), 'Device ' || g, encode(sha256(('scale-key-' || g)::bytea), 'base64'), g from generate_series(1, $1::int) g`,
      [devices, accounts],
    );
    await tx.query(`update wg_address_high set next_index = $1 where id = 1`, [devices + 1]);
    await tx.query(
      `insert into payments (public_id, user_id, tariff_id, currency, amount_minor, price_list, provider, status, idempotency_key, applied, created_at)
       select 'pay_scale_' || g, 1 + (g % $2::int), $3, 'USD', 999, 'default', 'sandbox', case when g % 20 = 0 then 'failed' else 'succeeded' end,
         'scale-' || g, g % 20 <> 0, now() - make_interval(hours => g % 20000)
       from generate_series(1, $1::int) g`,
      [accounts * 3, accounts, tariff!.id],
    );
  });
  // The seed ran with triggers off: the affiliate running totals (migration 0029) are built from it.
  await app.db.query('select affiliate_totals_rebuild()');
  await app.db.query('analyze');
}

async function prepare(name: Side['name'], accounts: number): Promise<Side> {
  const schema = `scale_${name}_${process.pid}`;
  const { app, dataDir } = await open(schema);
  if (accounts) {
    const t0 = performance.now();
    log(
      `scale bench: seeding ${accounts} accounts, ${Math.round(accounts * 1.5)} devices, ${accounts * 3} payments with SQL…`,
    );
    await seed(app, accounts);
    log(` ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
  }
  // A free location every active account's devices reach: the node's full state holds them all.
  const admin = app.services.vpn.admin;
  await admin.addLocation({
    slug: 'zz-scale',
    countryCode: 'ZZ',
    country: { en: 'Scale', ru: 'Scale', zh: 'Scale' },
    city: { en: 'Lab', ru: 'Lab', zh: 'Lab' },
    latitude: 0,
    longitude: 0,
    premium: false,
  });
  const { token: nodeToken } = await admin.addNode({
    location: 'zz-scale',
    name: 'zz-scale-1',
    endpointHost: '198.51.100.10',
  });

  // Customers through the API (the bench's sessions), on a paid plan; 16 for the adds at once.
  const customers: TestClient[] = [];
  for (let i = 0; i < 17; i++) {
    const c = new TestClient(app);
    const email = `bench${i}@scale-bench.invalid`;
    const res = await c.post('/api/users/register', { email, password: PASSWORD, password_confirmation: PASSWORD });
    if (res.statusCode !== 201) throw new Error(`register: ${res.statusCode} ${res.body}`);
    c.token = res.json().data.token;
    await app.db.query(
      `update users set verified = true, account_status = 'Active', tariff_key = 'lifetime', tariff_name = 'Lifetime' where id = $1`,
      [res.json().data.user.id],
    );
    customers.push(c);
  }
  // The first customer's codes brought the seeded referrals (every 10th account) and friends (every 15th).
  const first = customers[0]!;
  await first.get('/api/affiliate/stats');
  await first.get('/api/rewards');
  await app.db.query(
    `update users set attribution = case when attribution ? 'referralID' then jsonb_build_object('referralID', (select referral_code from users where email = 'bench0@scale-bench.invalid'))
       else jsonb_build_object('friendID', (select friend_code from users where email = 'bench0@scale-bench.invalid')) end
     where email like 'customer%@scale.invalid' and (attribution ? 'referralID' or attribution ? 'friendID') and id % 7 = 0`,
  );

  // A support member with two-factor, signed in to the console with a recovery code.
  const staffUser = new TestClient(app);
  const staffEmail = 'support@scale-bench.invalid';
  const reg = await staffUser.post('/api/users/register', {
    email: staffEmail,
    password: PASSWORD,
    password_confirmation: PASSWORD,
  });
  staffUser.token = reg.json().data.token;
  const secret = (await staffUser.post('/api/profile/2fa/setup')).json().data.secret as string;
  const recovery = (
    await staffUser.post('/api/profile/2fa/enable', { code: totpCode(secret, Date.now() - 30_000) })
  ).json().data.recoveryCodes as string[];
  await app.services.staff.grantRole(staffEmail, 'support');
  const staff = new TestClient(app);
  const signIn = await staff.post('/api/staff/session', { email: staffEmail, password: PASSWORD, code: recovery[0] });
  if (signIn.statusCode !== 200) throw new Error(`staff sign-in: ${signIn.statusCode} ${signIn.body}`);
  await app.db.query('analyze');
  return { name, schema, app, dataDir, customers, staff, nodeToken };
}

async function time(fn: () => Promise<{ statusCode: number; body: string }>, label: string): Promise<number> {
  const t0 = performance.now();
  const res = await fn();
  const ms = performance.now() - t0;
  if (res.statusCode >= 300) throw new Error(`${label}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  return ms;
}

type Call = { name: string; run: (s: Side, i: number) => Promise<number[]> };
const CALLS: Call[] = [
  {
    name: 'POST /api/setup/wg/devices/add',
    run: async (s, i) => [
      await time(() => s.customers[0]!.post('/api/setup/wg/devices/add', { name: `d${i}`, publicKey: wgKey() }), 'add'),
    ],
  },
  {
    name: '  … 16 customers adding at once',
    run: async (s, i) =>
      i % 4 === 2
        ? Promise.all(
            s.customers
              .slice(1)
              .map((c, k) =>
                time(
                  () => c.post('/api/setup/wg/devices/add', { name: `p${i}-${k}`, publicKey: wgKey() }),
                  'add at once',
                ),
              ),
          )
        : [],
  },
  { name: 'GET /api/rewards', run: async (s) => [await time(() => s.customers[0]!.get('/api/rewards'), 'rewards')] },
  {
    name: 'GET /api/affiliate/stats',
    run: async (s) => [await time(() => s.customers[0]!.get('/api/affiliate/stats'), 'affiliate')],
  },
  {
    name: 'GET /api/staff/customers?q=<email fragment>',
    run: async (s, i) => [await time(() => s.staff.get(`/api/staff/customers?q=omer${1000 + i * 37}`), 'staff search')],
  },
  {
    name: '  … a whole address pasted',
    run: async (s, i) => [
      await time(
        () => s.staff.get(`/api/staff/customers?q=${encodeURIComponent(`customer${1000 + i * 37}@scale.invalid`)}`),
        'staff search, whole address',
      ),
    ],
  },
  {
    name: 'GET /api/users/info/get',
    run: async (s) => [await time(() => s.customers[0]!.get('/api/users/info/get'), 'info')],
  },
  {
    name: 'GET /api/billing/subscription',
    run: async (s) => [await time(() => s.customers[0]!.get('/api/billing/subscription'), 'subscription')],
  },
];

/** Full state of the node with the event-loop lag of this (the serving) process meanwhile. */
async function fullState(
  s: Side,
): Promise<{ ms: number; mb: number; peers: number; lagMaxMs: number; lagP99Ms: number }> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const t0 = performance.now();
  const res = await s.app.inject({
    method: 'GET',
    url: '/api/nodes/desired',
    headers: { authorization: `Bearer ${s.nodeToken}` },
  });
  const ms = performance.now() - t0;
  h.disable();
  if (res.statusCode !== 200) throw new Error(`full state: ${res.statusCode}`);
  const peers = (res.json().data as DesiredState).peers.length;
  return { ms, mb: res.rawPayload.length / 1e6, peers, lagMaxMs: h.max / 1e6, lagP99Ms: h.percentile(99) / 1e6 };
}

/** A device added on instance A → the long poll parked on instance B answers: ms, each sample. */
async function crossInstance(a: Side, b: FastifyInstance, samples: number): Promise<number[]> {
  const node = { authorization: `Bearer ${a.nodeToken}` };
  const out: number[] = [];
  const base = (await b.inject({ method: 'GET', url: '/api/nodes/desired', headers: node })).json()
    .data as DesiredState;
  let since = base.version,
    at = base.evaluatedAt;
  for (let i = 0; i < samples; i++) {
    const pending = b.inject({
      method: 'GET',
      url: `/api/nodes/desired?since=${since}&at=${at}&wait=20`,
      headers: node,
    });
    while (b.services.vpn.watcher.waiting === 0) await new Promise((r) => setTimeout(r, 2));
    const t0 = performance.now();
    const add = await a.customers[0]!.post('/api/setup/wg/devices/add', { name: `x${i}`, publicKey: wgKey() });
    if (add.statusCode !== 201) throw new Error(`add: ${add.statusCode}`);
    const d = (await pending).json().data as DesiredState;
    out.push(performance.now() - t0);
    since = d.version;
    at = d.evaluatedAt;
  }
  return out;
}

/** Renewals per second: `instances` job engines with `concurrency` workers each, on `count` due renewals of the sandbox. */
async function renewalRate(
  s: Side,
  label: string,
  instances: number,
  concurrency: number,
  count: number,
): Promise<number> {
  const db = s.app.db;
  const [tariff] = await db.query<{ id: number; key: string; name: string }>(
    `select id, key, name from tariffs where period_days between 28 and 31 and not is_trial order by id limit 1`,
  );
  const ids = await db.query<{ id: number }>(
    `insert into users (email, password_hash, brand, verified, account_status, tariff_key, tariff_name, subscription_expires_at)
     select 'renew-' || $4 || '-' || g || '@scale-bench.invalid', '', 'warren-vpn', true, 'Active', $2, $3, now() + make_interval(hours => 1 + g % 48)
     from generate_series(1, $1::int) g returning id`,
    [count, tariff!.key, tariff!.name, label],
  );
  const list = ids.map((r) => r.id);
  await db.query(
    `insert into sandbox_cards (id, label) select 'card_' || $2 || '_' || u, 'Visa •••• 4242' from unnest($1::int[]) u`,
    [list, label],
  );
  await db.query(
    `insert into subscription_renewals (user_id, auto_renew, provider, method_ref, method_label, tariff_id, price_list, currency)
     select u, true, 'sandbox', 'card_' || $2 || '_' || u, 'Visa •••• 4242', $3, 'default', 'USD' from unnest($1::int[]) u`,
    [list, label, tariff!.id],
  );
  const engines = Array.from({ length: instances }, () =>
    jobEngine({
      db,
      database: { kind: 'postgres', url: URL_, schema: s.schema },
      renewals: s.app.services.billing.renewals,
      reconciliation: s.app.services.billing.reconciliation,
      renewConcurrency: concurrency,
    }),
  );
  const silent = {
    error: () => undefined,
    warn: () => undefined,
    info: () => undefined,
    debug: () => undefined,
    trace: () => undefined,
    fatal: () => undefined,
    child: () => silent,
    level: 'silent',
  } as never;
  const t0 = performance.now();
  await Promise.all(engines.map((e) => e.startWorkers({ deliverSandbox: async () => 200, log: silent })));
  for (;;) {
    const [row] = await db.query<{ n: number }>(
      `select count(*)::int as n from payments where kind = 'renewal' and status = 'succeeded' and user_id = any($1::int[])`,
      [list],
    );
    if (row!.n >= count) break;
    if (performance.now() - t0 > 600_000) throw new Error(`renewals: ${row!.n}/${count} after 10 minutes`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const seconds = (performance.now() - t0) / 1000;
  await Promise.all(engines.map((e) => e.stop()));
  return count / seconds;
}

async function main() {
  try {
    const c = new pg.Client({ connectionString: URL_ });
    await c.connect();
    await c.end();
  } catch (err) {
    console.log(`scale: skipped (no PostgreSQL at ${URL_.replace(/:[^:@/]*@/, ':***@')}: ${(err as Error).message})`);
    return;
  }
  const started = performance.now();
  const sides: Side[] = [];
  let b: { app: FastifyInstance; dataDir: string } | undefined;
  try {
    sides.push(await prepare('empty', 0));
    sides.push(await prepare('data', ACCOUNTS));
    const [empty, data] = sides as [Side, Side];
    console.log(
      `scale bench · PostgreSQL · ${ACCOUNTS} accounts vs empty · ${SAMPLES} samples per call, alternating · Node ${process.version}`,
    );
    const rows: { name: string; e: number[]; d: number[] }[] = [];
    for (const call of CALLS) {
      const e: number[] = [],
        d: number[] = [];
      for (let i = 0; i < SAMPLES + 2; i++) {
        for (const side of i % 2 ? [data, empty] : [empty, data]) {
          const ms = await call.run(side, i);
          if (i >= 2) (side === empty ? e : d).push(...ms); // two rounds warm up
        }
      }
      rows.push({ name: call.name, e, d });
      log('.');
    }
    log('\n');
    const fmt = (n: number) => n.toFixed(1).padStart(8);
    console.log(
      `${'call'.padEnd(48)} ${'empty p50'.padStart(9)} ${'p99'.padStart(8)} ${'data p50'.padStart(9)} ${'p99'.padStart(8)}  p50 ratio  p99 ratio  (target ≤ 1.5x)`,
    );
    let over = 0;
    for (const r of rows) {
      const [e50, e99, d50, d99] = [percentile(r.e, 50), percentile(r.e, 99), percentile(r.d, 50), percentile(r.d, 99)];
      const ok = d50 / e50 <= 1.5;
      if (!ok) over++;
      console.log(
        `${r.name.padEnd(48)} ${fmt(e50)} ${fmt(e99)} ${fmt(d50)} ${fmt(d99)}  ${(d50 / e50).toFixed(2).padStart(8)}x ${(d99 / e99).toFixed(2).padStart(8)}x  ${ok ? 'ok' : 'OVER'}`,
      );
    }
    console.log(
      `${over === 0 ? 'PASS' : 'OVER'}: ${rows.length - over}/${rows.length} calls within 1.5x of empty at p50 (ms)`,
    );

    // The node's full state: grows with the node by nature; what matters is that the instance keeps serving.
    for (const side of [empty, data]) {
      const runs = [];
      for (let i = 0; i < 3; i++) runs.push(await fullState(side));
      const m = runs.sort((x, y) => x.ms - y.ms)[1]!;
      console.log(
        `full state (${side.name}): ${m.peers} peers, ${m.mb.toFixed(1)} MB in ${m.ms.toFixed(0)} ms (median of 3); event-loop lag meanwhile max ${Math.max(...runs.map((r) => r.lagMaxMs)).toFixed(0)} ms, p99 ${m.lagP99Ms.toFixed(0)} ms`,
      );
    }

    // A second instance on the seeded schema: a change on A wakes B's long poll (LISTEN/NOTIFY; the log is read every 1 s otherwise).
    b = await open(data.schema);
    const cross = await crossInstance(data, b.app, 20);
    console.log(
      `change on instance A → long poll on instance B answers: p50 ${percentile(cross, 50).toFixed(0)} ms, p99 ${percentile(cross, 99).toFixed(0)} ms (20 changes; VPN_CHANGE_POLL_MS 1000)`,
    );

    // Renewals on the seeded schema, the sandbox provider: 1 worker, 4 at once, 3 instances of 4.
    const rates: string[] = [];
    for (const [label, instances, concurrency] of [
      ['one', 1, 1],
      ['four', 1, 4],
      ['three', 3, 4],
    ] as const) {
      const rate = await renewalRate(data, label, instances, concurrency, RENEWALS);
      rates.push(`${instances} instance${instances > 1 ? 's' : ''} × ${concurrency}: ${rate.toFixed(1)}/s`);
    }
    console.log(`renewals (${RENEWALS} due, sandbox, with ${ACCOUNTS} accounts): ${rates.join(' · ')}`);
    console.log(`(${((performance.now() - started) / 1000).toFixed(0)} s)`);
  } finally {
    await b?.app.close();
    for (const s of sides) {
      await s.app.db.query(`drop schema if exists ${s.schema} cascade`).catch(() => undefined);
      await s.app.db.query(`drop schema if exists ${s.schema}_jobs cascade`).catch(() => undefined);
      await s.app.close();
      fs.rmSync(s.dataDir, { recursive: true, force: true });
    }
    if (b) fs.rmSync(b.dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`scale bench failed: ${(err as Error).stack}`);
    process.exit(1);
  },
);
