/**
 * `npm run bench`: throughput of the API against bare baselines, measured with autocannon
 * over loopback. The servers run in a child process (servers.ts) so the load generator does
 * not share their event loop. Each comparison alternates A and B for several rounds and
 * compares medians, so drift on a busy machine hits both sides alike.
 *
 *   BENCH_ROUNDS (5) · BENCH_SECONDS (3) · BENCH_CONNECTIONS (10) · BENCH_DATABASE_URL (PGlite in memory when unset)
 */
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import type { Ready } from './servers.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const LOGIN_CONNECTIONS = Number(process.env.BENCH_LOGIN_CONNECTIONS ?? 8);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

interface Side {
  name: string;
  run: () => Promise<number>;
}

async function load(opts: Parameters<typeof autocannon>[0], label: string): Promise<number> {
  const r = await autocannon({ duration: SECONDS, connections: CONNECTIONS, ...opts });
  const bad = r.non2xx + r.errors + r.timeouts;
  if (bad > 0)
    throw new Error(
      `${label}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts out of ${r.requests.total}`,
    );
  return r.requests.total / SECONDS;
}

async function compare(a: Side, b: Side): Promise<{ a: number[]; b: number[] }> {
  const out = { a: [] as number[], b: [] as number[] };
  // Warm-up (JIT, connection pools, caches), not counted.
  await a.run();
  await b.run();
  for (let i = 0; i < ROUNDS; i++) {
    // A B, then B A: neither side always goes first.
    const order = i % 2 === 0 ? [a, b] : [b, a];
    for (const side of order) (side === a ? out.a : out.b).push(await side.run());
    process.stdout.write('.');
  }
  return out;
}

async function main() {
  const started = performance.now();
  const child: ChildProcess = fork(path.join(import.meta.dirname, 'servers.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const kill = () => child.exitCode === null && child.kill('SIGKILL');
  process.on('exit', kill);
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Ready));
    child.once('exit', (code) => reject(new Error(`bench servers exited with ${code}`)));
  });
  const argon2PerSecond = (concurrency: number) =>
    new Promise<number>((resolve) => {
      child.once('message', (m) => resolve((m as { perSecond: number }).perSecond));
      child.send({ type: 'argon2', seconds: SECONDS, concurrency });
    });

  const authHeaders = { authorization: `Bearer ${ready.token}` };
  const loginBody = JSON.stringify({ email: ready.email, password: ready.password });
  const loginHeaders = { 'content-type': 'application/json', cookie: ready.cookie, 'x-xsrf-token': ready.xsrf };

  console.log(
    `Warren API bench · ${ready.database} · ${ROUNDS} rounds × ${SECONDS} s per side · ${CONNECTIONS} connections (login ${LOGIN_CONNECTIONS}) · Node ${process.version}`,
  );
  const rows: { name: string; a: string; b: string; ma: number; mb: number; target: number; unit: string }[] = [];

  const health = await compare(
    { name: 'full', run: () => load({ url: `${ready.full}/api/health` }, 'GET /api/health') },
    { name: 'bare', run: () => load({ url: `${ready.bare}/hello` }, 'bare hello') },
  );
  rows.push({
    name: '(a) GET /api/health, full app vs bare Fastify hello-world',
    a: 'full',
    b: 'bare',
    ma: median(health.a),
    mb: median(health.b),
    target: 0.6,
    unit: 'req/s',
  });

  const info = await compare(
    {
      name: 'full',
      run: () => load({ url: `${ready.full}/api/users/info/get`, headers: authHeaders }, 'GET /api/users/info/get'),
    },
    { name: 'bare', run: () => load({ url: `${ready.bare}/user/${ready.userId}` }, 'bare select by id') },
  );
  rows.push({
    name: '(b) GET /api/users/info/get (bearer) vs bare primary-key select',
    a: 'full',
    b: 'bare',
    ma: median(info.a),
    mb: median(info.b),
    target: 0.5,
    unit: 'req/s',
  });

  const login = await compare(
    {
      name: 'login',
      run: () =>
        load(
          {
            url: `${ready.full}/api/users/login`,
            method: 'POST',
            body: loginBody,
            headers: loginHeaders,
            connections: LOGIN_CONNECTIONS,
          },
          'POST /api/users/login',
        ),
    },
    { name: 'argon2', run: () => argon2PerSecond(LOGIN_CONNECTIONS) },
  );
  rows.push({
    name: '(c) POST /api/users/login vs raw argon2id verify in-process',
    a: 'login',
    b: 'verify',
    ma: median(login.a),
    mb: median(login.b),
    target: 0.8,
    unit: '/s',
  });
  process.stdout.write('\n\n');

  const fmt = (n: number) => n.toFixed(n < 100 ? 1 : 0).padStart(8);
  console.log(
    `${'comparison'.padEnd(64)} ${'A median'.padStart(12)} ${'B median'.padStart(12)}  ratio  target  result`,
  );
  let below = 0;
  for (const r of rows) {
    const ratio = r.ma / r.mb;
    const pass = ratio >= r.target;
    if (!pass) below++;
    console.log(
      `${r.name.padEnd(64)} ${fmt(r.ma)} ${r.unit.padEnd(5)}${fmt(r.mb)} ${r.unit.padEnd(5)} ${ratio.toFixed(2).padStart(5)}  >=${r.target.toFixed(1)}  ${pass ? 'PASS' : 'BELOW'}`,
    );
  }
  console.log('\nrounds (A | B):');
  for (const [name, s] of [
    ['(a)', health],
    ['(b)', info],
    ['(c)', login],
  ] as const) {
    console.log(`  ${name} ${s.a.map((x) => x.toFixed(0)).join(' ')} | ${s.b.map((x) => x.toFixed(0)).join(' ')}`);
  }
  console.log(
    `\n${below === 0 ? 'PASS' : 'BELOW'}: ${rows.length - below}/${rows.length} comparisons meet their target (${((performance.now() - started) / 1000).toFixed(0)} s)`,
  );

  child.send({ type: 'close' });
  await new Promise((resolve) => child.once('exit', resolve));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
