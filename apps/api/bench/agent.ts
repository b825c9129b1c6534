/**
 * Agent benchmark (part of `npm run bench`; alone: `node --import tsx apps/api/bench/agent.ts`).
 * Needs root, iproute2, wireguard-tools and wireguard-go; skipped with a note otherwise.
 *
 * In a network namespace made for it, a wireguard-go interface carries 10,000 peers applied by
 * the real agent (a child process talking to the API over a unix socket). Then:
 *  1. latency: 100 devices added through the API one after another; for each, the time from the
 *     add call to the agent's `wg set` having returned (the peer is on the interface then; each
 *     one is checked in the interface dump afterwards, outside the timing). p50 and p99.
 *  2. full sync: the agent's full cycle (fetch the full state from the API, validate, render,
 *     write, `wg syncconf`) against a raw `wg syncconf` of the same file, alternating, median of
 *     BENCH_AGENT_ROUNDS, both from an empty interface and when already in sync.
 *
 *  3. the agent's own CPU per one-account delta at BENCH_AGENT_DELTA_PEERS peers (10k, 100k, 300k):
 *     the real Agent class in this process on a synthetic full state, fed one-account deltas
 *     (a device added, then removed) by a scripted API, with a `wg` that records the calls:
 *     wireguard-go holds at most 65,536 peers on an interface, so above that no interface is used.
 *     CPU time (user + system) of each syncOnce, p50 and p99.
 *
 *   BENCH_AGENT_PEERS (10000) · BENCH_AGENT_CHANGES (100) · BENCH_AGENT_ROUNDS (5)
 *   BENCH_AGENT_DELTA_PEERS (10000,100000,300000) · BENCH_AGENT_DELTAS (200)
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, execFile } from 'node:child_process';
import { Agent, ApiClient, Wg, interfaceLines, nextDesired, renderConfig } from '@warren/agent';
import type { DesiredState } from '@warren/contract';
import { addLocation, addNode } from '../src/modules/nodes/admin.js';
import { TestClient, createTestApp, registerUser } from '../test/helpers.js';
import { runIfMain } from './main.js';

/** The agent reads its node token from a file (mode 600): a command line is visible to every user in ps. */
function writeToken(dir: string, token: string): string {
  const file = path.join(dir, 'node-token');
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return file;
}

export interface AgentBenchResult {
  skipped?: string;
  peers: number;
  changes: number;
  latencyMs: { p50: number; p99: number; max: number };
  fullFromEmpty: { agentMs: number; rawMs: number; ratio: number };
  fullInSync: { agentMs: number; rawMs: number; ratio: number };
  initialApplyMs: number;
}

const exec = (cmd: string, args: string[]) =>
  new Promise<string>((resolve, reject) =>
    execFile(cmd, args, { maxBuffer: 256 * 1024 * 1024, timeout: 120_000 }, (err, out, errOut) =>
      err ? reject(new Error(`${cmd} ${args.slice(0, 6).join(' ')}: ${errOut || err.message}`)) : resolve(out),
    ),
  );
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
function wgKeyPair() {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  return {
    pub: publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64'),
    priv: privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32).toString('base64'),
  };
}

async function missingTools(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return 'needs root (network namespace)';
  for (const [tool, args] of [
    ['ip', ['-V']],
    ['wg', ['--version']],
    ['wireguard-go', ['--version']],
  ] as const) {
    try {
      await exec(tool, [...args]);
    } catch {
      return `needs ${tool} (apt-get install -y iproute2 wireguard-tools wireguard-go)`;
    }
  }
  if (!fs.existsSync('/dev/net/tun')) return 'needs /dev/net/tun';
  return undefined;
}

export async function benchAgent(
  opts: { peers?: number; changes?: number; rounds?: number; log?: (s: string) => void } = {},
): Promise<AgentBenchResult> {
  const PEERS = opts.peers ?? Number(process.env.BENCH_AGENT_PEERS ?? 10_000);
  const CHANGES = opts.changes ?? Number(process.env.BENCH_AGENT_CHANGES ?? 100);
  const ROUNDS = opts.rounds ?? Number(process.env.BENCH_AGENT_ROUNDS ?? 5);
  const log = opts.log ?? ((s: string) => process.stdout.write(s));
  const empty = {
    peers: PEERS,
    changes: CHANGES,
    latencyMs: { p50: NaN, p99: NaN, max: NaN },
    fullFromEmpty: { agentMs: NaN, rawMs: NaN, ratio: NaN },
    fullInSync: { agentMs: NaN, rawMs: NaN, ratio: NaN },
    initialApplyMs: NaN,
  };
  const missing = await missingTools();
  if (missing) return { ...empty, skipped: missing };

  const id = String(process.pid % 100_000);
  const NS = `warren-bench-${id}`;
  const IF = `wrb${id}`;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-agent-bench-'));
  const children: ReturnType<typeof spawn>[] = [];
  const t = await createTestApp({ LOG_LEVEL: 'warn', WG_DEVICE_LIMIT_PAID: '1000' });
  try {
    // --- the node: a namespace with a wireguard-go interface -------------------------------------
    await exec('ip', ['netns', 'add', NS]);
    const wgo = spawn('ip', ['netns', 'exec', NS, 'wireguard-go', '-f', IF], { stdio: 'ignore' });
    children.push(wgo);
    for (const end = Date.now() + 10_000; ;) {
      try {
        await exec('ip', ['netns', 'exec', NS, 'wg', 'show', IF]);
        break;
      } catch (err) {
        if (Date.now() > end) throw err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    fs.writeFileSync(path.join(tmp, 'if.key'), wgKeyPair().priv, { mode: 0o600 });
    await exec('ip', [
      'netns',
      'exec',
      NS,
      'wg',
      'set',
      IF,
      'private-key',
      path.join(tmp, 'if.key'),
      'listen-port',
      '51820',
    ]);

    // --- the API with PEERS paid devices on one premium node --------------------------------------
    const socket = path.join(tmp, 'api.sock');
    await t.app.listen({ path: socket });
    await addLocation(t.app.db, {
      slug: 'bench-lab',
      countryCode: 'ZZ',
      country: { en: 'Bench', ru: 'Bench', zh: 'Bench' },
      city: { en: 'Lab', ru: 'Lab', zh: 'Lab' },
      latitude: 0,
      longitude: 0,
      premium: true,
    });
    const { token } = await addNode(t.app.db, {
      location: 'bench-lab',
      name: 'bench-lab-1',
      endpointHost: '192.0.2.1',
    });
    log(`agent bench: seeding ${PEERS} devices…`);
    const keys = Array.from({ length: PEERS }, () => wgKeyPair().pub);
    await t.app.db.query(
      `insert into users (email, password_hash, brand, verified, account_status, tariff_key, tariff_name)
       select 'bench-' || g || '@bench.invalid', '', 'warren-vpn', true, 'Active', 'lifetime', 'Lifetime' from generate_series(1, $1::int) g`,
      [PEERS],
    );
    await t.app.db.query(
      `insert into wg_devices (user_id, name, public_key, addr_index)
       select u.id, 'bench', k.key, k.ord::int from unnest($1::text[]) with ordinality as k(key, ord)
       join users u on u.email = 'bench-' || k.ord || '@bench.invalid'`,
      [keys],
    );

    // --- the agent, as in production: a child process in the namespace -------------------------
    const agentLines: { at: number; line: Record<string, unknown> }[] = [];
    const waiters: { test: (l: Record<string, unknown>) => boolean; resolve: (at: number) => void }[] = [];
    const agentProc = spawn(
      'ip',
      [
        'netns',
        'exec',
        NS,
        process.execPath,
        path.resolve(import.meta.dirname, '../../agent/bin/warren-agent.mjs'),
        '--api-socket',
        socket,
        '--token-file',
        writeToken(tmp, token),
        '--interface',
        IF,
        '--state-dir',
        path.join(tmp, 'agent'),
        '--resync-interval',
        '86400',
        '--report-interval',
        '3600',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(agentProc);
    let buf = '';
    agentProc.stdout!.on('data', (chunk: Buffer) => {
      const at = performance.now();
      buf += chunk.toString();
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const raw = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        try {
          const line = JSON.parse(raw) as Record<string, unknown>;
          agentLines.push({ at, line });
          for (const w of [...waiters])
            if (w.test(line)) {
              waiters.splice(waiters.indexOf(w), 1);
              w.resolve(at);
            }
        } catch {
          /* not a log line */
        }
      }
    });
    const nextLine = (test: (l: Record<string, unknown>) => boolean, ms = 30_000) =>
      new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`agent: no matching log line within ${ms} ms`)), ms);
        waiters.push({ test, resolve: (at) => (clearTimeout(timer), resolve(at)) });
      });
    const initial = await nextLine((l) => l.msg === 'applied' && l.peers === PEERS, 120_000);
    const initialApplyMs = Number(agentLines.find((l) => l.line.msg === 'applied')!.line.ms);
    void initial;
    log(` initial sync of ${PEERS} peers applied in ${initialApplyMs} ms.\n`);

    // --- 1. latency of 100 changes --------------------------------------------------------------
    const user = new TestClient(t.app);
    const { user: u } = await registerUser(user, `bench-owner-${id}@bench.invalid`);
    await t.app.db.query(
      `update users set verified = true, account_status = 'Active', tariff_key = 'lifetime', tariff_name = 'Lifetime' where id = $1`,
      [u.id],
    );
    // Let the agent see the owner's plan change before measuring.
    await nextLine((l) => l.msg === 'applied' || l.msg === 'noop', 3000).catch(() => undefined);
    const latencies: number[] = [];
    const added: string[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const key = wgKeyPair().pub;
      const applied = nextLine((l) => l.msg === 'applied' && l.mode === 'set' && Number(l.peers) >= PEERS + i + 1);
      const t0 = performance.now();
      const res = await user.post('/api/setup/wg/devices/add', { name: `d${i}`, publicKey: key });
      if (res.statusCode !== 201) throw new Error(`add device: ${res.statusCode} ${res.body}`);
      latencies.push((await applied) - t0);
      added.push(key);
    }
    const present = new Set((await exec('ip', ['netns', 'exec', NS, 'wg', 'show', IF, 'peers'])).split('\n'));
    const absent = added.filter((k) => !present.has(k));
    if (absent.length) throw new Error(`${absent.length} added peers are not on the interface`);
    const latencyMs = {
      p50: Math.round(percentile(latencies, 50)),
      p99: Math.round(percentile(latencies, 99)),
      max: Math.round(Math.max(...latencies)),
    };
    agentProc.kill('SIGTERM');
    await new Promise((r) => agentProc.once('exit', r));

    // --- 2. full cycle vs raw syncconf ------------------------------------------------------------
    const run = (args: string[]) => exec('ip', ['netns', 'exec', NS, 'wg', ...args]);
    const wg = new Wg(IF, run, path.join(tmp, 'cycle'));
    const api = new ApiClient({ baseUrl: 'http://localhost', socketPath: socket, token });
    const fullState = await api.desired({});
    const desired = nextDesired(null, fullState);
    const file = path.join(tmp, 'raw.conf');
    fs.writeFileSync(file, renderConfig(interfaceLines(await run(['showconf', IF])), desired), { mode: 0o600 });
    const emptyFile = path.join(tmp, 'empty.conf');
    fs.writeFileSync(emptyFile, renderConfig(interfaceLines(await run(['showconf', IF])), new Map()), { mode: 0o600 });
    const agentCycle = async () => {
      const agent = new Agent(api, wg, {
        waitS: 0,
        reportIntervalS: 3600,
        resyncIntervalS: 86_400,
        capacity: 1000,
        maxSetChanges: 500,
      });
      const t0 = performance.now();
      await agent.syncOnce();
      return performance.now() - t0;
    };
    const rawCycle = async () => {
      const t0 = performance.now();
      await run(['syncconf', IF, file]);
      return performance.now() - t0;
    };
    const measure = async (fromEmpty: boolean) => {
      const a: number[] = [],
        b: number[] = [];
      for (let i = 0; i < ROUNDS + 1; i++) {
        for (const side of i % 2 ? ['raw', 'agent'] : ['agent', 'raw']) {
          if (fromEmpty) await run(['syncconf', IF, emptyFile]);
          else await run(['syncconf', IF, file]);
          const ms = side === 'agent' ? await agentCycle() : await rawCycle();
          if (i > 0) (side === 'agent' ? a : b).push(ms); // round 0 warms up
        }
        log('.');
      }
      const agentMs = Math.round(median(a)),
        rawMs = Math.round(median(b));
      return { agentMs, rawMs, ratio: Math.round((median(a) / median(b)) * 100) / 100 };
    };
    const fullFromEmpty = await measure(true);
    const fullInSync = await measure(false);
    log('\n');
    return { peers: PEERS + CHANGES, changes: CHANGES, latencyMs, fullFromEmpty, fullInSync, initialApplyMs };
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await exec('ip', ['netns', 'delete', NS]).catch(() => undefined);
    await t.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export interface DeltaCpuResult {
  peers: number;
  deltas: number;
  cpuMs: { p50: number; p99: number; max: number };
}

/** The agent's CPU per one-account delta at `peers` peers, without an interface (see 3. above). */
export async function benchAgentDeltaCpu(
  peers: number,
  deltas = Number(process.env.BENCH_AGENT_DELTAS ?? 200),
): Promise<DeltaCpuResult> {
  const key = () => randomBytes(32).toString('base64');
  const ips = (i: number) => [
    `10.${64 + ((i >> 16) & 63)}.${(i >> 8) & 255}.${i & 255}/32`,
    `fd77:6172:7265::${i.toString(16)}/128`,
  ];
  const full: DesiredState = {
    node: { id: 1, name: 'bench' },
    version: 1,
    evaluatedAt: 1,
    nextCheckAt: null,
    full: true,
    changedOwners: [],
    peers: Array.from({ length: peers }, (_, i) => ({ publicKey: key(), allowedIps: ips(i + 1), owner: i + 1 })),
    serviceUsers: [],
    stealthUsers: [],
    dnsBlocking: [],
  };
  let version = 1;
  let next: DesiredState = full;
  const api = {
    desired: async () => next,
    report: async () => 0,
  };
  let calls = 0;
  const wg = {
    iface: 'wgbench',
    dump: async () => ({ iface: {}, peers: [] }),
    set: async () => void calls++,
    syncconf: async () => void calls++,
  };
  const agent = new Agent(api, wg as never, {
    waitS: 25,
    reportIntervalS: 3600,
    resyncIntervalS: 86_400,
    capacity: peers * 2,
    maxSetChanges: 500,
  });
  await agent.syncOnce();
  const owner = peers + 1;
  const cpu: number[] = [];
  for (let i = 0; i < deltas; i++) {
    // One account: a device added (even rounds), then the account's devices gone (odd rounds).
    next = {
      ...full,
      full: false,
      version: ++version,
      evaluatedAt: version,
      changedOwners: [owner],
      peers: i % 2 === 0 ? [{ publicKey: key(), allowedIps: ips(peers + 1), owner }] : [],
    };
    const before = process.cpuUsage();
    const r = await agent.syncOnce();
    const used = process.cpuUsage(before);
    if (r.mode !== 'set' || r.changes !== 1) throw new Error(`delta ${i}: ${JSON.stringify(r)}`);
    cpu.push((used.user + used.system) / 1000);
  }
  if (calls !== deltas + 1) throw new Error(`wg calls: ${calls}`);
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    peers,
    deltas,
    cpuMs: { p50: round(percentile(cpu, 50)), p99: round(percentile(cpu, 99)), max: round(Math.max(...cpu)) },
  };
}

export function formatDeltaCpu(r: DeltaCpuResult): string {
  const target =
    r.peers >= 100_000 && r.peers < 200_000
      ? ` (target p99 < 100 ms at 100k: ${r.cpuMs.p99 < 100 ? 'ok' : 'OVER TARGET'})`
      : '';
  return `agent: CPU per one-account delta with ${r.peers} peers (no interface), ${r.deltas} deltas: p50 ${r.cpuMs.p50} ms, p99 ${r.cpuMs.p99} ms, max ${r.cpuMs.max} ms${target}`;
}

export function formatAgentBench(r: AgentBenchResult): string {
  if (r.skipped) return `agent: skipped (${r.skipped})`;
  const ok = (b: boolean) => (b ? 'ok' : 'OVER TARGET');
  return [
    `agent: device added in the API → peer on the interface, ${r.changes} changes with ${r.peers - r.changes}+ peers: p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms, max ${r.latencyMs.max} ms (target p99 < 2000 ms: ${ok(r.latencyMs.p99 < 2000)})`,
    `agent: full sync of ${r.peers} peers from an empty interface: agent cycle ${r.fullFromEmpty.agentMs} ms vs raw wg syncconf ${r.fullFromEmpty.rawMs} ms = ${r.fullFromEmpty.ratio}x (target ≤ 2x: ${ok(r.fullFromEmpty.ratio <= 2)})`,
    `agent: full sync of ${r.peers} peers already in sync (drift check): agent cycle ${r.fullInSync.agentMs} ms vs raw wg syncconf ${r.fullInSync.rawMs} ms = ${r.fullInSync.ratio}x`,
    `agent: first sync of ${r.peers - r.changes} peers at start-up applied in ${r.initialApplyMs} ms`,
  ].join('\n');
}

runIfMain(import.meta.filename, 'agent', async () => {
  console.log(formatAgentBench(await benchAgent()));
  for (const n of (process.env.BENCH_AGENT_DELTA_PEERS ?? '10000,100000,300000').split(',').map(Number))
    console.log(formatDeltaCpu(await benchAgentDeltaCpu(n)));
});
