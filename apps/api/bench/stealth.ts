/**
 * Stealth benchmark (part of `npm run bench`; alone: `node --import tsx apps/api/bench/stealth.ts`).
 * Needs root and Debian's v2ray, wireguard-tools, wireguard-go, curl, openssl; skipped with a note otherwise.
 *
 * Two network namespaces made for it (client, node; nothing leaves them): the node brought up with
 * `warren-agent setup --stealth-host …` (WireGuard and the stealth core), a web server beyond the
 * node (on its loopback) sending BENCH_STEALTH_MB of bytes. Then:
 *  1. throughput through the same node: a download over WireGuard (wireguard-go, the client's
 *     config from the API) and over VLESS (WebSocket + TLS) and Trojan (TLS) with Debian's v2ray as
 *     the client, configured from the subscription URL; alternating, median of BENCH_STEALTH_ROUNDS;
 *     stealth / WireGuard as a ratio;
 *  2. latency: BENCH_STEALTH_CHANGES credential rotations through the API one after another; for
 *     each, the time from the call to the agent having given the core the new user (its
 *     `stealth users applied` line: AlterInbound has returned, the customer can connect). p50, p99.
 *     The last credentials are then checked to carry a page (outside the timing).
 *
 *   BENCH_STEALTH_MB (100) · BENCH_STEALTH_ROUNDS (3) · BENCH_STEALTH_CHANGES (50)
 */
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type StealthOverview, type WgDevice, type WgOverview, renderWgConfig } from '@warren/contract';
import { addLocation, addNode } from '../src/modules/nodes/admin.js';
import { TestClient, createTestApp, registerUser } from '../test/helpers.js';
import {
  type Background,
  background,
  hasTool,
  inNs,
  run,
  setupNode,
  stopWireguardGo,
  until,
} from '../../../e2e/tunnel/netns.js';
import { clientConfigFromLink, decodeSubscription } from '../../../e2e/tunnel/stealth-client.js';
import { runIfMain } from './main.js';

export interface StealthBenchResult {
  skipped?: string;
  mb: number;
  mbitS: { wireguard: number; vless: number; trojan: number };
  ratio: { vless: number; trojan: number };
  changes: number;
  latencyMs: { p50: number; p99: number; max: number };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

async function missingTools(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return 'needs root (network namespaces)';
  for (const [tool, args] of [
    ['ip', ['-V']],
    ['wg', ['--version']],
    ['wireguard-go', ['--version']],
    ['v2ray', ['-version']],
    ['curl', ['--version']],
    ['openssl', ['version']],
    ['nft', ['--version']],
  ] as const) {
    if (!(await hasTool(tool, [...args])))
      return `needs ${tool} (apt-get install -y iproute2 wireguard-tools wireguard-go v2ray curl openssl nftables)`;
  }
  return undefined;
}

export async function benchStealth(
  opts: { mb?: number; rounds?: number; changes?: number; log?: (s: string) => void } = {},
): Promise<StealthBenchResult> {
  const MB = opts.mb ?? Number(process.env.BENCH_STEALTH_MB ?? 100);
  const ROUNDS = opts.rounds ?? Number(process.env.BENCH_STEALTH_ROUNDS ?? 3);
  const CHANGES = opts.changes ?? Number(process.env.BENCH_STEALTH_CHANGES ?? 50);
  const log = opts.log ?? ((s: string) => process.stdout.write(s));
  const empty: StealthBenchResult = {
    mb: MB,
    mbitS: { wireguard: NaN, vless: NaN, trojan: NaN },
    ratio: { vless: NaN, trojan: NaN },
    changes: CHANGES,
    latencyMs: { p50: NaN, p99: NaN, max: NaN },
  };
  const missing = await missingTools();
  if (missing) return { ...empty, skipped: missing };

  const id = String(process.pid % 100_000);
  const NS_SRV = `warren-bsrv-${id}`;
  const NS_CLI = `warren-bcli-${id}`;
  const IF_WG = `wbs${id}`;
  const IF_WGC = `wbc${id}`;
  const NODE_IP = '10.209.0.1';
  const CLIENT_IP = '10.209.0.2';
  const WEB_IP = '10.250.0.80';
  const HOST = 'static.alder-loam.test';
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-stealth-bench-'));
  const procs: Background[] = [];
  const t = await createTestApp({ LOG_LEVEL: 'warn' });
  try {
    // --- namespaces, certificates, the web server beyond the node -----------------------------------
    const f = (n: string) => path.join(tmp, n);
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      f('ca.key'),
      '-out',
      f('ca.crt'),
      '-days',
      '2',
      '-subj',
      '/CN=Bench Root',
    ]);
    await run('openssl', [
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      f('node.key'),
      '-out',
      f('node.csr'),
      '-subj',
      `/CN=${HOST}`,
    ]);
    fs.writeFileSync(f('ext'), `subjectAltName=DNS:${HOST}\n`);
    await run('openssl', [
      'x509',
      '-req',
      '-in',
      f('node.csr'),
      '-CA',
      f('ca.crt'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-out',
      f('node.crt'),
      '-days',
      '2',
      '-extfile',
      f('ext'),
    ]);
    for (const ns of [NS_SRV, NS_CLI]) {
      await run('ip', ['netns', 'add', ns]);
      await run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    }
    await run('ip', [
      '-n',
      NS_SRV,
      'link',
      'add',
      `wbv${id}s`,
      'type',
      'veth',
      'peer',
      'name',
      `wbv${id}c`,
      'netns',
      NS_CLI,
    ]);
    for (const [ns, dev, addr] of [
      [NS_SRV, `wbv${id}s`, NODE_IP],
      [NS_CLI, `wbv${id}c`, CLIENT_IP],
    ] as const) {
      await run('ip', ['-n', ns, 'address', 'add', `${addr}/30`, 'dev', dev]);
      await run('ip', ['-n', ns, 'link', 'set', dev, 'up']);
    }
    await run('ip', ['-n', NS_SRV, 'address', 'add', `${WEB_IP}/32`, 'dev', 'lo']);
    fs.mkdirSync(`/etc/netns/${NS_CLI}`, { recursive: true });
    fs.writeFileSync(`/etc/netns/${NS_CLI}/hosts`, `127.0.0.1 localhost\n${NODE_IP} ${HOST}\n`);
    const server = `const http = require('node:http'); const chunk = Buffer.alloc(1 << 20, 120);
      http.createServer((q, r) => { if (q.url === '/') return r.end('bench-page'); let left = ${MB}; r.writeHead(200, { 'content-length': left * chunk.length });
        const more = () => { while (left > 0) { left--; if (!r.write(chunk)) return r.once('drain', more); } r.end(); }; more(); })
      .listen(8080, ${JSON.stringify(WEB_IP)}, () => console.log('listening'));`;
    procs.push(await background('ip', ['netns', 'exec', NS_SRV, process.execPath, '-e', server], /listening/));

    // --- the API and the node, as the README says ---------------------------------------------------
    const socket = f('api.sock');
    await t.app.listen({ path: socket });
    await addLocation(t.app.db, {
      slug: 'bench-st',
      countryCode: 'ZZ',
      country: { en: 'Bench', ru: 'Bench', zh: 'Bench' },
      city: { en: 'Lab', ru: 'Lab', zh: 'Lab' },
      latitude: 0,
      longitude: 0,
      premium: true,
    });
    const { token } = await addNode(t.app.db, {
      location: 'bench-st',
      name: 'bench-st-1',
      endpointHost: NODE_IP,
      listenPort: 51820,
    });
    fs.writeFileSync(f('node-token'), `${token}\n`, { mode: 0o600 });
    const setup = await setupNode(NS_SRV, [
      '--api-socket',
      socket,
      '--token-file',
      f('node-token'),
      '--interface',
      IF_WG,
      '--services',
      'none',
      '--stealth-host',
      HOST,
      '--stealth-cert',
      f('node.crt'),
      '--stealth-key',
      f('node.key'),
      '--stealth-http-port',
      '0',
      '--etc-dir',
      f('etc'),
      '--state-dir',
      f('agent'),
      '--systemd-dir',
      f('systemd'),
      '--sysctl-dir',
      f('sysctl'),
    ]);
    const coreLine = /start the stealth core with:\n\s+(.+)/.exec(setup.output)![1]!.trim().split(/\s+/);
    procs.push(await background('ip', ['netns', 'exec', NS_SRV, ...coreLine], /V2Ray \S+ started/));
    const applied: { at: number; added: number }[] = [];
    const [node, ...agentArgs] = setup.start;
    const agent = await background(
      'ip',
      ['netns', 'exec', NS_SRV, node!, ...agentArgs, '--report-interval', '2', '--wait', '25'],
      /"msg":"stealth users loaded"/,
      60_000,
    );
    procs.push(agent);
    let seen = 0;
    agent.child.stdout!.on('data', () => {
      const out = agent.output();
      const at = performance.now();
      for (const m of out.slice(seen).matchAll(/"msg":"stealth users applied".*?"added":(\d+)/g))
        applied.push({ at, added: Number(m[1]) });
      seen = out.length;
    });

    // --- a paying customer: a WireGuard device and the stealth subscription -------------------------
    const user = new TestClient(t.app);
    const { user: u } = await registerUser(user, `bench-stealth-${id}@bench.invalid`);
    await t.app.db.query(
      `update users set verified = true, account_status = 'Active', tariff_key = 'lifetime', tariff_name = 'Lifetime' where id = $1`,
      [u.id],
    );
    const { publicKey, privateKey } = generateKeyPairSync('x25519');
    const dev = await user.post('/api/setup/wg/devices/add', {
      name: 'bench',
      publicKey: publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64'),
    });
    if (dev.statusCode !== 201) throw new Error(`add device: ${dev.statusCode} ${dev.body}`);
    const device = dev.json().data.device as WgDevice;
    const wgo = await until(
      'node key reported',
      async () => {
        const o = (await user.get('/api/setup/wg/get')).json().data as WgOverview;
        return o.locations.find((l) => l.slug === 'bench-st')?.publicKey ? o : undefined;
      },
      15_000,
      200,
    );
    const loc = wgo.locations.find((l) => l.slug === 'bench-st')!;
    const conf = renderWgConfig({
      privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32).toString('base64'),
      addresses: [device.ipv4, device.ipv6],
      dns: wgo.dns,
      serverPublicKey: loc.publicKey!,
      endpoint: loc.endpoint!,
      allowedIps: wgo.allowedIps,
      title: 'bench',
    });
    procs.push(await background('ip', ['netns', 'exec', NS_CLI, 'wireguard-go', '-f', IF_WGC], null));
    await until('client interface', () => inNs(NS_CLI, 'wg', ['show', IF_WGC]).then(() => true), 10_000);
    fs.writeFileSync(f('wg.conf'), conf.replace(/^(Address|DNS) = .*\n/gm, ''), { mode: 0o600 });
    await inNs(NS_CLI, 'wg', ['setconf', IF_WGC, f('wg.conf')]);
    await inNs(NS_CLI, 'ip', ['address', 'add', device.ipv4, 'dev', IF_WGC]);
    await inNs(NS_CLI, 'ip', ['link', 'set', IF_WGC, 'up']);
    await inNs(NS_CLI, 'ip', ['route', 'replace', `${WEB_IP}/32`, 'dev', IF_WGC]);

    const links = await until(
      'stealth links',
      async () => {
        const o = (await user.get('/api/setup/stealth/get')).json().data as StealthOverview | undefined;
        if (!o) return undefined;
        const sub = await t.app.inject({ method: 'GET', url: new URL(o.subscriptionUrl).pathname });
        const l = sub.statusCode === 200 ? decodeSubscription(sub.body) : [];
        return l.some((x) => x.startsWith('vless://')) && l.some((x) => x.startsWith('trojan://')) ? l : undefined;
      },
      15_000,
      250,
    );
    let socksPort = 12080;
    const client = async (link: string) => {
      const port = socksPort++;
      fs.writeFileSync(f(`client-${port}.json`), JSON.stringify(clientConfigFromLink(link, port)), { mode: 0o600 });
      procs.push(
        await background(
          'ip',
          ['netns', 'exec', NS_CLI, 'v2ray', '-config', f(`client-${port}.json`)],
          /V2Ray \S+ started/,
          15_000,
          { ...process.env, SSL_CERT_FILE: f('ca.crt') },
        ),
      );
      return port;
    };
    const vlessPort = await client(links.find((l) => l.startsWith('vless://'))!);
    const trojanPort = await client(links.find((l) => l.startsWith('trojan://'))!);
    const curl = async (via: string[], urlPath: string, maxS: number) =>
      inNs(
        NS_CLI,
        'curl',
        [
          '-sS',
          '-o',
          urlPath === '/' ? '-' : '/dev/null',
          '-w',
          urlPath === '/' ? '' : '%{speed_download}',
          '--max-time',
          String(maxS),
          ...via,
          `http://${WEB_IP}:8080${urlPath}`,
        ],
        { timeoutMs: maxS * 1000 + 5000 },
      );
    const ways: Record<'wireguard' | 'vless' | 'trojan', string[]> = {
      wireguard: [],
      vless: ['--socks5-hostname', `127.0.0.1:${vlessPort}`],
      trojan: ['--socks5-hostname', `127.0.0.1:${trojanPort}`],
    };
    for (const [name, via] of Object.entries(ways))
      await until(
        `${name} carries the page`,
        async () => (await curl(via, '/', 2).catch(() => '')) === 'bench-page',
        15_000,
        200,
      );

    // --- 1. throughput ---------------------------------------------------------------------------
    log(`stealth bench: ${MB} MB downloads, ${ROUNDS} rounds`);
    const speeds: Record<string, number[]> = { wireguard: [], vless: [], trojan: [] };
    for (let i = 0; i < ROUNDS + 1; i++) {
      const order = (['wireguard', 'vless', 'trojan'] as const)
        .slice(i % 3)
        .concat((['wireguard', 'vless', 'trojan'] as const).slice(0, i % 3));
      for (const name of order) {
        const bytesS = Number(await curl(ways[name], '/bytes', 120));
        if (i > 0) speeds[name]!.push((bytesS * 8) / 1e6); // round 0 warms up
      }
      log('.');
    }
    const mbitS = {
      wireguard: Math.round(median(speeds.wireguard!)),
      vless: Math.round(median(speeds.vless!)),
      trojan: Math.round(median(speeds.trojan!)),
    };
    const ratio = {
      vless: Math.round((median(speeds.vless!) / median(speeds.wireguard!)) * 100) / 100,
      trojan: Math.round((median(speeds.trojan!) / median(speeds.wireguard!)) * 100) / 100,
    };

    // --- 2. API change → usable on the node ---------------------------------------------------------
    // The API allows a customer 10 resets an hour: the changes go round several paying customers.
    const rotating: TestClient[] = [];
    for (let k = 0; k < Math.ceil(CHANGES / 8); k++) {
      const c = new TestClient(t.app);
      const { user: cu } = await registerUser(c, `bench-stealth-${id}-${k}@bench.invalid`);
      await t.app.db.query(
        `update users set verified = true, account_status = 'Active', tariff_key = 'lifetime', tariff_name = 'Lifetime' where id = $1`,
        [cu.id],
      );
      const before = applied.length;
      if ((await c.get('/api/setup/stealth/get')).statusCode !== 200) throw new Error('stealth/get');
      await until('customer on the node', async () => applied.slice(before).some((a) => a.added >= 1), 15_000, 5);
      rotating.push(c);
    }
    const latencies: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const before = applied.length;
      const t0 = performance.now();
      const res = await rotating[i % rotating.length]!.post('/api/setup/stealth/reset');
      if (res.statusCode !== 200) throw new Error(`reset: ${res.statusCode} ${res.body}`);
      const at = await until(
        'the agent gave the core the new user',
        async () => applied.slice(before).find((a) => a.added >= 1)?.at,
        15_000,
        2,
      );
      latencies.push(at - t0);
    }
    const lastUser = rotating[(CHANGES - 1) % rotating.length]!;
    const sub = (await lastUser.get('/api/setup/stealth/get')).json().data as StealthOverview;
    const last = decodeSubscription(
      (await t.app.inject({ method: 'GET', url: new URL(sub.subscriptionUrl).pathname })).body,
    );
    const check = await client(last.find((l) => l.startsWith('trojan://'))!);
    await until(
      'the last credentials carry the page',
      async () => (await curl(['--socks5-hostname', `127.0.0.1:${check}`], '/', 2).catch(() => '')) === 'bench-page',
      10_000,
      100,
    );
    log('\n');
    return {
      mb: MB,
      mbitS,
      ratio,
      changes: CHANGES,
      latencyMs: {
        p50: Math.round(percentile(latencies, 50)),
        p99: Math.round(percentile(latencies, 99)),
        max: Math.round(Math.max(...latencies)),
      },
    };
  } finally {
    for (const p of procs.reverse()) await p.stop().catch(() => undefined);
    await stopWireguardGo(NS_SRV, IF_WG);
    await stopWireguardGo(NS_CLI, IF_WGC);
    for (const ns of [NS_CLI, NS_SRV]) await run('ip', ['netns', 'delete', ns]).catch(() => undefined);
    fs.rmSync(`/etc/netns/${NS_CLI}`, { recursive: true, force: true });
    await t.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export function formatStealthBench(r: StealthBenchResult): string {
  if (r.skipped) return `stealth: skipped (${r.skipped})`;
  return [
    `stealth: ${r.mb} MB through the same node: WireGuard ${r.mbitS.wireguard} Mbit/s, VLESS (WebSocket+TLS) ${r.mbitS.vless} Mbit/s = ${r.ratio.vless}x, Trojan (TLS) ${r.mbitS.trojan} Mbit/s = ${r.ratio.trojan}x of WireGuard`,
    `stealth: credentials rotated in the API → new user in the core, ${r.changes} changes: p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms, max ${r.latencyMs.max} ms`,
  ].join('\n');
}

runIfMain(import.meta.filename, 'stealth', async () => console.log(formatStealthBench(await benchStealth())));
