import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StealthOverview, type WgDevice, type WgOverview, renderWgConfig } from '@warren/contract';
import { type TestClient, createTestApp, type TestApp } from '../../apps/api/test/helpers.js';
import { addLocation, addNode } from '../../apps/api/src/modules/nodes/admin.js';
import { type Background, background, hasTool, inNs, run, setupNode, stopWireguardGo, until } from './netns.js';
import { payingUser } from './paying-user.js';
import { clientConfigFromLink, decodeSubscription } from './stealth-client.js';

/**
 * Stealth (issue 21) through a censor. Three namespaces made for this test: the client, a
 * "censor" that forwards between the client and the node and drops what DPI boxes fingerprint
 * (nftables raw payload matches; iptables' string match for TLS to blocklisted names), and the node
 * (WireGuard, OpenVPN, SOCKS5 and the stealth core, brought up with `warren-agent setup`). A web
 * page "beyond the node" lives on the node namespace's loopback: the client has no route to it,
 * only a tunnel or the proxy gets there. Through the censor the plain protocols fail, while
 * Debian's v2ray as the client, configured only from what the subscription URL returns, fetches
 * the page over VLESS (WebSocket + TLS) and Trojan (TLS). Addresses exist only in these namespaces.
 */
const id = String(process.pid % 100_000);
const NS_CLI = `st2-xcli-${id}`;
const NS_CEN = `st2-xcen-${id}`;
const NS_SRV = `st2-xsrv-${id}`;
const IF_WG = `st2s${id}`;
const IF_WGC = `st2c${id}`;
const V_CLI = [`st2a${id}c`, `st2a${id}x`];
const V_SRV = [`st2b${id}s`, `st2b${id}x`];
const CLIENT_IP = '10.207.0.2';
const CEN_CLI_IP = '10.207.0.1';
const CEN_SRV_IP = '10.208.0.1';
const NODE_IP = '10.208.0.2';
const WEB_IP = '10.250.0.80';
const PAGE_PORT = 8080;
const WG_PORT = 51820;
/** The node's public host name (in the certificate and the links), and one the censor blocks. */
const HOST = 'static.alder-loam.test';
const BLOCKED_HOST = 'blocked-vpn.test';
const PORT = 443;
const NONCE = `warren-stealth-${Math.random().toString(36).slice(2)}`;
const STOP_WITHIN_MS = 5000;

let t: TestApp;
let tmp: string;
let caFile: string;
let setupArgs: string[] = [];
const procs: Background[] = [];
let core: Background | undefined;
let coreCommand: string[] = [];
let restartWatcher: fs.FSWatcher | undefined;
/** When the stand-in for warren-stealth-restart.path restarted the core (ms). */
const coreRestarts: number[] = [];
let agent: Background | undefined;
const clients: Background[] = [];
const log: string[] = [];

function writeToken(dir: string, token: string): string {
  const file = path.join(dir, 'node-token');
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return file;
}

/** A CA of the test's own and a certificate for HOST from it (openssl); apps trust the CA, never skip verification. */
async function makeCertificates(dir: string): Promise<{ ca: string; cert: string; key: string }> {
  const f = (n: string) => path.join(dir, n);
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
    '/CN=Test Root',
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
  fs.chmodSync(f('node.key'), 0o600);
  return { ca: f('ca.crt'), cert: f('node.crt'), key: f('node.key') };
}

/** The censor: drops the handshakes DPI boxes recognise, lets everything else (ordinary TLS among it) through. Named counters show what it dropped. */
const CENSOR_NFT = `table inet censor {
  counter wireguard {}
  counter openvpn_udp {}
  counter openvpn_tcp {}
  counter socks5 {}
  counter http_proxy {}
  chain forward {
    type filter hook forward priority filter; policy accept;
    # WireGuard handshake initiation: type 1 and three zero bytes, 148 bytes of UDP payload.
    udp length 156 @ih,0,32 0x01000000 counter name "wireguard" drop
    # OpenVPN P_CONTROL_HARD_RESET_CLIENT_V2/V3 (opcode 7/10, key id 0) as the first byte of a UDP datagram…
    meta l4proto udp @ih,0,8 { 0x38, 0x50 } counter name "openvpn_udp" drop
    # …and after the 2-byte length of a TCP packet.
    meta l4proto tcp @ih,0,8 0x00 @ih,16,8 { 0x38, 0x50 } counter name "openvpn_tcp" drop
    # SOCKS5 greeting (version 5).
    meta l4proto tcp @ih,0,8 0x05 counter name "socks5" drop
    # Plain HTTP proxy requests: "CONNECT " and absolute-URI "GET http".
    meta l4proto tcp @ih,0,64 0x434f4e4e45435420 counter name "http_proxy" drop
    meta l4proto tcp @ih,0,64 0x4745542068747470 counter name "http_proxy" drop
  }
}
`;

async function censorCounters(): Promise<Record<string, number>> {
  const j = JSON.parse(await inNs(NS_CEN, 'nft', ['-j', 'list', 'counters', 'table', 'inet', 'censor'])) as {
    nftables: { counter?: { name: string; packets: number } }[];
  };
  const out: Record<string, number> = {};
  for (const e of j.nftables) if (e.counter) out[e.counter.name] = e.counter.packets;
  // TLS ClientHellos naming a blocklisted host (iptables' string match; nftables has none).
  const ipt = await inNs(NS_CEN, 'iptables', ['-L', 'FORWARD', '-v', '-x', '-n']);
  out.blocked_sni = Number(/^\s*(\d+)\s+\d+\s+DROP\b.*STRING match/m.exec(ipt)?.[1] ?? 0);
  return out;
}

const T0 = Date.now();
const mark = (what: string) => log.push(`${what}: +${Date.now() - T0} ms`);

beforeAll(async () => {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) missing.push('root (network namespaces)');
  for (const [tool, args] of [
    ['ip', ['-V']],
    ['wg', ['--version']],
    ['wireguard-go', ['--version']],
    ['openvpn', ['--version']],
    ['curl', ['--version']],
    ['nft', ['--version']],
    ['iptables', ['--version']],
    ['v2ray', ['-version']],
    ['openssl', ['version']],
  ] as const) {
    if (!(await hasTool(tool, [...args]))) missing.push(tool);
  }
  if (missing.length)
    throw new Error(
      `The stealth test needs: ${missing.join(', ')} (apt-get install -y iproute2 wireguard-tools wireguard-go openvpn curl nftables iptables v2ray openssl)`,
    );

  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-stealth-'));
  const certs = await makeCertificates(tmp);
  caFile = certs.ca;
  for (const ns of [NS_CLI, NS_CEN, NS_SRV]) {
    await run('ip', ['netns', 'add', ns]);
    await run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
  }
  await run('ip', ['-n', NS_CLI, 'link', 'add', V_CLI[0]!, 'type', 'veth', 'peer', 'name', V_CLI[1]!, 'netns', NS_CEN]);
  await run('ip', ['-n', NS_SRV, 'link', 'add', V_SRV[0]!, 'type', 'veth', 'peer', 'name', V_SRV[1]!, 'netns', NS_CEN]);
  for (const [ns, dev, addr] of [
    [NS_CLI, V_CLI[0]!, CLIENT_IP],
    [NS_CEN, V_CLI[1]!, CEN_CLI_IP],
    [NS_CEN, V_SRV[1]!, CEN_SRV_IP],
    [NS_SRV, V_SRV[0]!, NODE_IP],
  ] as const) {
    await run('ip', ['-n', ns, 'address', 'add', `${addr}/30`, 'dev', dev]);
    await run('ip', ['-n', ns, 'link', 'set', dev, 'up']);
  }
  await run('ip', ['-n', NS_CLI, 'route', 'add', 'default', 'via', CEN_CLI_IP]);
  await run('ip', ['-n', NS_SRV, 'route', 'add', `${CLIENT_IP}/32`, 'via', CEN_SRV_IP]);
  await inNs(NS_CEN, 'sysctl', ['-qw', 'net.ipv4.ip_forward=1']);
  await inNs(NS_CEN, 'nft', ['-f', '-'], { input: CENSOR_NFT });
  await inNs(NS_CEN, 'iptables', [
    '-A',
    'FORWARD',
    '-p',
    'tcp',
    '-m',
    'u32',
    '--u32',
    '0>>22&0x3C@12>>26&0x3C@0>>24=0x16',
    '-m',
    'string',
    '--string',
    BLOCKED_HOST,
    '--algo',
    'bm',
    '-j',
    'DROP',
  ]);
  // The client resolves the node's name as its DNS would (ip netns exec mounts this over /etc/hosts).
  fs.mkdirSync(`/etc/netns/${NS_CLI}`, { recursive: true });
  fs.writeFileSync(`/etc/netns/${NS_CLI}/hosts`, `127.0.0.1 localhost\n${NODE_IP} ${HOST} ${BLOCKED_HOST}\n`);

  // The page beyond the node: / answers the nonce; /stream sends a numbered line every 100 ms until /end is asked for.
  await run('ip', ['-n', NS_SRV, 'address', 'add', `${WEB_IP}/32`, 'dev', 'lo']);
  const pageScript = `const http = require('node:http'); const streams = new Set();
    http.createServer((q, r) => {
      if (q.url === '/stream') { let n = 0; const t = setInterval(() => r.write('line ' + (n++) + '\\n'), 100); streams.add(() => { clearInterval(t); r.end('END ' + n + '\\n'); }); return; }
      if (q.url === '/end') { for (const s of streams) s(); streams.clear(); return r.end('ended'); }
      r.end(${JSON.stringify(NONCE)});
    }).listen(${PAGE_PORT}, ${JSON.stringify(WEB_IP)}, () => console.log('page listening'));`;
  procs.push(await background('ip', ['netns', 'exec', NS_SRV, process.execPath, '-e', pageScript], /page listening/));

  mark('namespaces, censor, page');
  t = await createTestApp({ LOG_LEVEL: 'warn' });
  mark('API app');
  const socket = path.join(tmp, 'api.sock');
  await t.app.listen({ path: socket });
  await addLocation(t.app.db, {
    slug: 'zz-st',
    countryCode: 'ZZ',
    country: { en: 'Stealth Lab', ru: 'Лаборатория', zh: '实验室' },
    city: { en: 'Censored', ru: 'Цензура', zh: '审查' },
    latitude: 0,
    longitude: 0,
    premium: true,
  });
  const { token } = await addNode(t.app.db, {
    location: 'zz-st',
    name: 'zz-st-1',
    endpointHost: NODE_IP,
    listenPort: WG_PORT,
  });
  // OpenVPN's TCP server defaults to 443 as well: on a node with stealth it moves (README: Stealth).
  await t.app.db.query(`update vpn_nodes set openvpn_tcp_port = 1194 where name = 'zz-st-1'`);

  // The node as the README says: one setup command, then the core and the agent as it printed.
  setupArgs = [
    '--api-socket',
    socket,
    '--token-file',
    writeToken(tmp, token),
    '--interface',
    IF_WG,
    '--port',
    String(WG_PORT),
    '--services',
    'openvpn,socks',
    '--stealth-host',
    HOST,
    '--stealth-cert',
    certs.cert,
    '--stealth-key',
    certs.key,
    '--etc-dir',
    path.join(tmp, 'etc'),
    '--state-dir',
    path.join(tmp, 'agent'),
    '--systemd-dir',
    path.join(tmp, 'systemd'),
    '--sysctl-dir',
    path.join(tmp, 'sysctl'),
  ];
  const setup = await setupNode(NS_SRV, setupArgs);
  mark('setup');
  expect(setup.output).toMatch(/^stealth core config\s+changed/m);
  const coreLine = /start the stealth core with:\n\s+(.+)/.exec(setup.output)?.[1]?.trim().split(/\s+/);
  expect(coreLine).toBeDefined();
  coreCommand = ['netns', 'exec', NS_SRV, ...coreLine!];
  core = await background('ip', coreCommand, /V2Ray \S+ started/, 20_000);
  restartWatcher = watchRestartTrigger(
    /^WARREN_STEALTH_RESTART_FILE=(.+)$/m.exec(fs.readFileSync(path.join(tmp, 'etc', 'agent.env'), 'utf8'))![1]!,
  );
  const [node, ...agentArgs] = setup.start;
  agent = await background(
    'ip',
    ['netns', 'exec', NS_SRV, node!, ...agentArgs, '--report-interval', '2', '--wait', '25'],
    /"msg":"stealth users loaded"/,
    60_000,
  );
  mark('core and agent up');
}, 120_000);

afterAll(async () => {
  restartWatcher?.close();
  for (const p of [...clients, agent, core, ...procs.reverse()]) await p?.stop().catch(() => undefined);
  if (agent && process.env.TUNNEL_DEBUG) log.push(`agent output:\n${agent.output().slice(-6000)}`);
  await stopWireguardGo(NS_SRV, IF_WG);
  await stopWireguardGo(NS_CLI, IF_WGC);
  for (const ns of [NS_CLI, NS_CEN, NS_SRV]) await run('ip', ['netns', 'delete', ns]).catch(() => undefined);
  fs.rmSync(`/etc/netns/${NS_CLI}`, { recursive: true, force: true });
  await t?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  if (log.length) console.log(log.join('\n'));
});

/**
 * systemd does not run here, so the test does what warren-stealth-restart.path does on a node (setup
 * wrote it; systemd-analyze verifies it below): when the agent writes the trigger file, the core is
 * restarted (stopped, started again with the same command).
 */
function watchRestartTrigger(file: string): fs.FSWatcher {
  let handled = '';
  let busy: Promise<void> = Promise.resolve();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  return fs.watch(path.dirname(file), (_event, name) => {
    if (name !== path.basename(file)) return;
    busy = busy.then(async () => {
      const content = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      if (!content || content === handled) return;
      handled = content;
      await core?.stop();
      core = await background('ip', coreCommand, /V2Ray \S+ started/, 20_000);
      coreRestarts.push(Date.now());
    });
  });
}

/** A customer who registered and paid through the sandbox. */

/** What an app does with the subscription URL: fetch it, base64-decode it, one link a line. */
async function subscription(user: TestClient): Promise<string[]> {
  const res = await user.get('/api/setup/stealth/get');
  expect(res.statusCode, res.body).toBe(200);
  const o = res.json().data as StealthOverview;
  const url = new URL(o.subscriptionUrl);
  const sub = await t.app.inject({ method: 'GET', url: url.pathname + url.search });
  expect(sub.statusCode, sub.body).toBe(200);
  return decodeSubscription(sub.body);
}

let nextSocks = 11080;
/** Debian's v2ray as the customer's app, in the client namespace, trusting the test CA as a system would. */
async function startClient(link: string): Promise<{ port: number; proc: Background }> {
  const port = nextSocks++;
  const file = path.join(tmp, `client-${port}.json`);
  fs.writeFileSync(file, JSON.stringify(clientConfigFromLink(link, port)), { mode: 0o600 });
  const proc = await background(
    'ip',
    ['netns', 'exec', NS_CLI, 'v2ray', '-config', file],
    /V2Ray \S+ started/,
    15_000,
    { ...process.env, SSL_CERT_FILE: caFile },
  );
  clients.push(proc);
  return { port, proc };
}

/** The page beyond the node through a client's local SOCKS port (the app's proxy); the body, or undefined. */
async function viaClient(port: number, urlPath = '/', timeoutS = 3): Promise<string | undefined> {
  try {
    return await inNs(
      NS_CLI,
      'curl',
      [
        '-sS',
        '--max-time',
        String(timeoutS),
        '--socks5-hostname',
        `127.0.0.1:${port}`,
        `http://${WEB_IP}:${PAGE_PORT}${urlPath}`,
      ],
      { timeoutMs: timeoutS * 1000 + 5000 },
    );
  } catch {
    return undefined;
  }
}

/** Time from `since` until the page stops coming through a client: the first of two misses in a row started after `since`. */
async function timeUntilStops(port: number, since: number): Promise<number> {
  const deadline = since + STOP_WITHIN_MS + 5000;
  let firstMiss: number | undefined;
  let misses = 0;
  while (Date.now() < deadline) {
    const at = Date.now();
    const body = await viaClient(port, '/', 1);
    if (body?.includes(NONCE) || at < since) {
      firstMiss = undefined;
      misses = 0;
    } else {
      firstMiss ??= at;
      if (++misses >= 2) return firstMiss - since;
    }
  }
  return Infinity;
}

const linkOf = (links: string[], protocol: 'vless' | 'trojan') => {
  const l = links.find((x) => x.startsWith(`${protocol}://`));
  if (!l) throw new Error(`no ${protocol} link in the subscription: ${links.join(' ')}`);
  return l;
};

describe('the censor', () => {
  it('blocks WireGuard, OpenVPN over UDP and TCP, SOCKS5 and plain HTTP proxying', async () => {
    const user = await payingUser(t.app);
    // WireGuard: a device as the web page makes it, brought up in the client namespace.
    const { publicKey, privateKey } = generateKeyPairSync('x25519');
    const pub = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
    const res = await user.post('/api/setup/wg/devices/add', { name: 'Laptop', publicKey: pub });
    expect(res.statusCode, res.body).toBe(201);
    const device = res.json().data.device as WgDevice;
    const o = (await user.get('/api/setup/wg/get')).json().data as WgOverview;
    const loc = o.locations.find((l) => l.slug === 'zz-st')!;
    await until(
      'node key reported',
      async () =>
        (await user.get('/api/setup/wg/get')).json().data.locations.find((l: { slug: string }) => l.slug === 'zz-st')
          ?.publicKey,
      10_000,
    );
    const fresh = (await user.get('/api/setup/wg/get')).json().data as WgOverview;
    const conf = renderWgConfig({
      privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32).toString('base64'),
      addresses: [device.ipv4, device.ipv6],
      dns: o.dns,
      serverPublicKey: fresh.locations.find((l) => l.slug === 'zz-st')!.publicKey!,
      endpoint: loc.endpoint!,
      allowedIps: o.allowedIps,
      title: 'x',
    });
    procs.push(await background('ip', ['netns', 'exec', NS_CLI, 'wireguard-go', '-f', IF_WGC], null));
    await until('client interface', () => inNs(NS_CLI, 'wg', ['show', IF_WGC]).then(() => true), 10_000);
    const file = path.join(tmp, 'wg.conf');
    fs.writeFileSync(file, conf.replace(/^(Address|DNS) = .*\n/gm, ''), { mode: 0o600 });
    await inNs(NS_CLI, 'wg', ['setconf', IF_WGC, file]);
    await inNs(NS_CLI, 'ip', ['address', 'add', device.ipv4, 'dev', IF_WGC]);
    await inNs(NS_CLI, 'ip', ['link', 'set', IF_WGC, 'up']);
    await inNs(NS_CLI, 'ip', ['route', 'replace', '10.64.0.0/10', 'dev', IF_WGC]);
    await inNs(NS_CLI, 'ping', ['-c', '1', '-W', '1', '10.64.0.1']).catch(() => undefined);
    await until(
      'WireGuard initiation dropped by the censor',
      async () => (await censorCounters()).wireguard! >= 1,
      10_000,
    );
    expect(
      (await inNs(NS_SRV, 'wg', ['show', IF_WG, 'latest-handshakes']))
        .split('\n')
        .filter(Boolean)
        .every((l) => l.trim().endsWith('\t0')),
    ).toBe(true);

    // OpenVPN (the files the customer downloads, their credentials), SOCKS5 and an HTTP proxy
    // request, side by side: the first packet of each never arrives.
    const creds = (await user.get('/api/setup/services/get')).json().data.credentials as {
      username: string;
      password: string;
    };
    const auth = path.join(tmp, 'auth.txt');
    fs.writeFileSync(auth, `${creds.username}\n${creds.password}\n`, { mode: 0o600 });
    const openvpn = async (protocol: 'udp' | 'tcp') => {
      const ovpn = await user.get(`/api/setup/openvpn/config?location=zz-st&protocol=${protocol}`);
      expect(ovpn.statusCode, ovpn.body).toBe(200);
      const f = path.join(tmp, `client-${protocol}.ovpn`);
      fs.writeFileSync(f, ovpn.body, { mode: 0o600 });
      const c = await background(
        'ip',
        ['netns', 'exec', NS_CLI, 'openvpn', '--config', f, '--auth-user-pass', auth, '--verb', '3'],
        null,
      );
      try {
        await until(
          `OpenVPN ${protocol} reset dropped by the censor`,
          async () => (await censorCounters())[`openvpn_${protocol}`]! >= 1,
          10_000,
        );
        expect(c.output()).not.toContain('Initialization Sequence Completed');
      } finally {
        await c.stop();
      }
    };
    const failing = (args: string[]) =>
      inNs(NS_CLI, 'curl', ['-sS', '--max-time', '1.5', ...args, `http://${WEB_IP}:${PAGE_PORT}/`]).catch(
        (e: Error) => `failed: ${e.message}`,
      );
    const [, , socks, proxy] = await Promise.all([
      openvpn('udp'),
      openvpn('tcp'),
      failing(['--socks5-hostname', `${creds.username}:${creds.password}@${NODE_IP}:1080`]),
      failing(['-x', `http://${NODE_IP}:1080`]),
    ]);
    expect(socks).toMatch(/^failed/);
    expect(proxy).toMatch(/^failed/);
    const counters = await censorCounters();
    expect(counters.socks5).toBeGreaterThanOrEqual(1);
    expect(counters.http_proxy).toBeGreaterThanOrEqual(1);
    log.push(`censor dropped: ${JSON.stringify(counters)}`);
  });

  it('lets ordinary TLS through, but not TLS naming a blocklisted host', async () => {
    const ok = await inNs(NS_CLI, 'curl', ['-sS', '--max-time', '3', '--cacert', caFile, `https://${HOST}:${PORT}/`]);
    expect(ok).toContain('Alder &amp; Loam');
    const blocked = await inNs(NS_CLI, 'curl', [
      '-sS',
      '--max-time',
      '1.5',
      '-k',
      `https://${BLOCKED_HOST}:${PORT}/`,
    ]).catch((e: Error) => `failed: ${e.message}`);
    expect(blocked).toMatch(/^failed/);
    expect(
      (await censorCounters()).blocked_sni,
      `${blocked}\n${await inNs(NS_CEN, 'iptables', ['-L', 'FORWARD', '-v', '-x', '-n'])}`,
    ).toBeGreaterThanOrEqual(1);
  });
});

describe('an active probe of the node', () => {
  it('gets an ordinary website over TLS (with the CA) and over plain HTTP, and nothing that names a VPN', async () => {
    const tls = await inNs(NS_CLI, 'curl', [
      '-sS',
      '-i',
      '--max-time',
      '3',
      '--cacert',
      caFile,
      `https://${HOST}:${PORT}/`,
    ]);
    expect(tls).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(tls).toMatch(/^server: nginx/im);
    const plain = await inNs(NS_CLI, 'curl', ['-sS', '-i', '--max-time', '3', `http://${NODE_IP}/`]);
    expect(plain).toMatch(/^HTTP\/1\.1 200 OK/);
    for (const body of [tls, plain]) {
      expect(body).toContain('Alder &amp; Loam');
      expect(body).not.toMatch(/vpn|warren|v2ray|trojan|vless|proxy/i);
    }
    const other = await inNs(NS_CLI, 'curl', [
      '-sS',
      '-o',
      '/dev/null',
      '-w',
      '%{http_code}',
      '--max-time',
      '3',
      '--cacert',
      caFile,
      `https://${HOST}:${PORT}/admin`,
    ]);
    expect(other).toBe('404');
  });
});

describe('setup with stealth', () => {
  it("a second run changes nothing (the WebSocket path is kept); the units it wrote, the core's among them, are ones systemd accepts", async () => {
    const pathBefore = fs.readFileSync(path.join(tmp, 'etc', 'stealth-ws-path'), 'utf8');
    const again = await setupNode(NS_SRV, setupArgs);
    expect(again.output).toContain('nothing to change');
    expect(fs.readFileSync(path.join(tmp, 'etc', 'stealth-ws-path'), 'utf8')).toBe(pathBefore);
    expect(fs.statSync(path.join(tmp, 'etc', 'stealth-core.json')).mode & 0o777).toBe(0o600);
    if (await hasTool('systemd-analyze', ['--version'])) {
      const units = fs.readdirSync(path.join(tmp, 'systemd')).map((f) => path.join(tmp, 'systemd', f));
      expect(units.map((u) => path.basename(u)).sort()).toContain('warren-stealth.service');
      const verdict = await new Promise<string>((resolve) =>
        execFile('systemd-analyze', ['verify', ...units], (err, _out, stderr) =>
          resolve(`${err ? `exit ${err.code} ` : ''}${stderr}`.trim()),
        ),
      );
      expect(verdict).toBe('');
    } else log.push('systemd-analyze not installed: units not verified');
  });
});

describe('VLESS and Trojan through the censor, configured only from the subscription URL', () => {
  let user: TestClient;
  let links: string[];
  let vless: { port: number; proc: Background };
  let trojan: { port: number; proc: Background };

  beforeAll(async () => {
    user = await payingUser(t.app);
    links = await until(
      'links in the subscription',
      async () => {
        const l = await subscription(user);
        return l.some((x) => x.startsWith('vless://')) && l.some((x) => x.startsWith('trojan://')) ? l : undefined;
      },
      10_000,
      250,
    );
    log.push(`subscription: ${links.map((l) => l.replace(/\/\/[^@]+@/, '//…@')).join(' | ')}`);
    const since = Date.now();
    vless = await startClient(linkOf(links, 'vless'));
    trojan = await startClient(linkOf(links, 'trojan'));
    await until(
      'the customer usable on the node (VLESS)',
      async () => (await viaClient(vless.port, '/', 1))?.includes(NONCE),
      10_000,
      100,
    );
    log.push(`stealth: paid → page through VLESS in ${Date.now() - since} ms (clients started in it)`);
  });

  it('reaches the page beyond the node over VLESS (WebSocket + TLS) and Trojan (TLS)', async () => {
    expect(await viaClient(vless.port)).toBe(NONCE);
    expect(await viaClient(trojan.port)).toBe(NONCE);
    // No link asks to skip verification; the client refuses a node whose certificate it cannot verify.
    expect(links.join('\n')).not.toMatch(/allowInsecure=1|insecure=1|allowInsecure=true/i);
    expect(new URL(linkOf(links, 'vless')).searchParams.get('sni')).toBe(HOST);
  });

  it('attacks: random bytes, a wrong name, the WebSocket path without an upgrade, the node itself through the proxy', async () => {
    // Side by side: random bytes to the TLS port (nothing comes back: no TLS, no banner); a TLS
    // client asking for another name (it gets the node's certificate and refuses it); the WebSocket
    // path without an upgrade (a 400, as a WebSocket endpoint answers); and a customer trying the
    // node's own loopback services (the core's API, the website) through the proxy (blackholed).
    const script = `const s = require('node:net').connect(${PORT}, ${JSON.stringify(NODE_IP)}, () => s.write(require('node:crypto').randomBytes(300)));
      let n = 0; s.on('data', (d) => (n += d.length)); s.on('error', () => {}); s.on('close', () => process.stdout.write(String(n))); setTimeout(() => s.destroy(), 2000);`;
    const wsPath = new URL(linkOf(links, 'vless')).searchParams.get('path')!;
    const viaProxy = (target: string) =>
      inNs(NS_CLI, 'curl', [
        '-sS',
        '--max-time',
        '2',
        '--socks5-hostname',
        `127.0.0.1:${trojan.port}`,
        `http://${target}/`,
      ]).catch((e: Error) => `failed: ${e.message}`);
    const [random, wrong, ws, ...loopback] = await Promise.all([
      inNs(NS_CLI, process.execPath, ['-e', script], { timeoutMs: 10_000 }),
      inNs(NS_CLI, 'curl', [
        '-sS',
        '--max-time',
        '3',
        '--cacert',
        caFile,
        '--resolve',
        `other.example.test:${PORT}:${NODE_IP}`,
        `https://other.example.test:${PORT}/`,
      ]).catch((e: Error) => e.message),
      inNs(NS_CLI, 'curl', [
        '-sS',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code}',
        '--max-time',
        '3',
        '--cacert',
        caFile,
        `https://${HOST}:${PORT}${wsPath}`,
      ]),
      viaProxy('127.0.0.1:10080'),
      viaProxy('localhost:10080'),
      viaProxy('127.0.0.1:10085'),
    ]);
    expect(random).toBe('0');
    expect(wrong).toMatch(/certificate|SSL/i);
    expect(ws).toBe('400');
    for (const r of loopback) expect(r).toMatch(/^failed/);
  });

  it('an open connection of one customer survives another being added and removed', async () => {
    const streamer = spawn(
      'ip',
      [
        'netns',
        'exec',
        NS_CLI,
        'curl',
        '-sS',
        '-N',
        '--max-time',
        '40',
        '--socks5-hostname',
        `127.0.0.1:${trojan.port}`,
        `http://${WEB_IP}:${PAGE_PORT}/stream`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let got = '';
    streamer.stdout!.on('data', (c: Buffer) => (got += c.toString()));
    const exited = new Promise<number | null>((r) => (streamer as ChildProcess).once('exit', (code) => r(code)));
    await until('stream started', async () => got.includes('line 1'), 10_000, 50);
    const other = await payingUser(t.app);
    const otherLinks = await until(
      'second customer in the subscription',
      async () => {
        const l = await subscription(other);
        return l.some((x) => x.startsWith('trojan://')) ? l : undefined;
      },
      10_000,
      250,
    );
    const b = await startClient(linkOf(otherLinks, 'trojan'));
    await until('second customer usable', async () => (await viaClient(b.port, '/', 1))?.includes(NONCE), 10_000, 100);
    const otherId = ((await other.get('/api/users/info/get')).json().data as { id: number }).id;
    await t.app.db.query(`update users set subscription_expires_at = now() - interval '1 second' where id = $1`, [
      otherId,
    ]);
    expect(await timeUntilStops(b.port, Date.now())).toBeLessThan(STOP_WITHIN_MS);
    await inNs(NS_SRV, 'curl', ['-sS', '--max-time', '3', `http://${WEB_IP}:${PAGE_PORT}/end`]);
    expect(await exited).toBe(0);
    const lines = got.trim().split('\n');
    const n = Number(/^END (\d+)$/.exec(lines.at(-1)!)?.[1]);
    // Every line, in order, none lost: the connection lived through both changes.
    expect(lines.slice(0, -1)).toEqual(Array.from({ length: n }, (_, i) => `line ${i}`));
    log.push(`customer A's open connection carried ${n} lines while B was added and removed`);
  });

  it('a rotation stops the old links within 5 s, and the new ones work', async () => {
    const res = await user.post('/api/setup/stealth/reset');
    expect(res.statusCode, res.body).toBe(200);
    const since = Date.now();
    const [v, tr] = await Promise.all([timeUntilStops(vless.port, since), timeUntilStops(trojan.port, since)]);
    log.push(`stealth rotation: VLESS stopped after ${v} ms, Trojan after ${tr} ms`);
    expect(v).toBeLessThan(STOP_WITHIN_MS);
    expect(tr).toBeLessThan(STOP_WITHIN_MS);
    links = await subscription(user);
    vless = await startClient(linkOf(links, 'vless'));
    trojan = await startClient(linkOf(links, 'trojan'));
    await until(
      'new VLESS link works',
      async () => (await viaClient(vless.port, '/', 1))?.includes(NONCE),
      10_000,
      100,
    );
    expect(await viaClient(trojan.port)).toBe(NONCE);
  });

  it('a suspended (disabled) account stops stealth traffic within 5 s, and comes back when reactivated', async () => {
    const me = (await user.get('/api/users/info/get')).json().data as { id: number };
    await t.app.db.query(`update users set account_status = 'Suspended' where id = $1`, [me.id]);
    const since = Date.now();
    const [v, tr] = await Promise.all([timeUntilStops(vless.port, since), timeUntilStops(trojan.port, since)]);
    log.push(`stealth suspension: VLESS stopped after ${v} ms, Trojan after ${tr} ms`);
    expect(v).toBeLessThan(STOP_WITHIN_MS);
    expect(tr).toBeLessThan(STOP_WITHIN_MS);
    await t.app.db.query(`update users set account_status = 'Active' where id = $1`, [me.id]);
    await until('usable again', async () => (await viaClient(trojan.port, '/', 1))?.includes(NONCE), 10_000, 100);
  });

  it('a lapsed plan stops stealth traffic within 5 s', async () => {
    const me = (await user.get('/api/users/info/get')).json().data as { id: number };
    await t.app.db.query(`update users set subscription_expires_at = now() - interval '1 second' where id = $1`, [
      me.id,
    ]);
    const since = Date.now();
    const [v, tr] = await Promise.all([timeUntilStops(vless.port, since), timeUntilStops(trojan.port, since)]);
    log.push(`stealth lapse: VLESS stopped after ${v} ms, Trojan after ${tr} ms`);
    expect(v).toBeLessThan(STOP_WITHIN_MS);
    expect(tr).toBeLessThan(STOP_WITHIN_MS);
  });
});

/** A download that never ends by itself (a numbered line every 100 ms) through a client's SOCKS port, as an app's open connection. */
function openStream(port: number) {
  const child = spawn(
    'ip',
    [
      'netns',
      'exec',
      NS_CLI,
      'curl',
      '-sS',
      '-N',
      '--max-time',
      '60',
      '--socks5-hostname',
      `127.0.0.1:${port}`,
      `http://${WEB_IP}:${PAGE_PORT}/stream`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let got = '';
  child.stdout!.on('data', (c: Buffer) => (got += c.toString()));
  const exited = new Promise<number>((r) => child.once('exit', () => r(Date.now())));
  /** When it ended, or Infinity when it still runs after `ms`. */
  const endedWithin = (ms: number) =>
    Promise.race([exited, new Promise<number>((r) => setTimeout(() => r(Infinity), ms).unref())]);
  return { child, got: () => got, endedWithin };
}

describe('when access ends on a connection already open', () => {
  it("the ended customer's streaming download stops within 5 s; another customer's open connection is cut by the core's restart and their app is usable again", async () => {
    const [a, b] = [await payingUser(t.app), await payingUser(t.app)];
    const both = (l: string[]) =>
      l.some((x) => x.startsWith('vless://')) && l.some((x) => x.startsWith('trojan://')) ? l : undefined;
    const linksA = await until('A in the subscription', async () => both(await subscription(a)), 10_000, 250);
    const linksB = await until('B in the subscription', async () => both(await subscription(b)), 10_000, 250);
    const [av, at, bt] = [
      await startClient(linkOf(linksA, 'vless')),
      await startClient(linkOf(linksA, 'trojan')),
      await startClient(linkOf(linksB, 'trojan')),
    ];
    for (const c of [av, at, bt])
      await until(
        'customer usable on the node',
        async () => (await viaClient(c.port, '/', 1))?.includes(NONCE),
        10_000,
        100,
      );
    const streams = [openStream(av.port), openStream(at.port), openStream(bt.port)];
    try {
      await until('three downloads running', async () => streams.every((s) => s.got().includes('line 2')), 10_000, 50);
      const restartsBefore = coreRestarts.length;
      // A resets their credentials: the old ones end, and with them the two downloads open over them.
      const res = await a.post('/api/setup/stealth/reset');
      expect(res.statusCode, res.body).toBe(200);
      const since = Date.now();
      const [vlessEnd, trojanEnd] = await Promise.all([
        streams[0]!.endedWithin(STOP_WITHIN_MS + 10_000),
        streams[1]!.endedWithin(STOP_WITHIN_MS + 10_000),
      ]);
      log.push(
        `open connections after a reset: VLESS download stopped after ${vlessEnd - since} ms, Trojan after ${trojanEnd - since} ms`,
      );
      expect(vlessEnd - since).toBeLessThan(STOP_WITHIN_MS);
      expect(trojanEnd - since).toBeLessThan(STOP_WITHIN_MS);
      expect(coreRestarts.length).toBe(restartsBefore + 1);
      expect(agent!.output()).toMatch(
        /stealth: restarting the core: 1 customer\(s\) whose access ended still have open connections/,
      );
      // B's download went with the restart; B's app opens a new connection and is served again.
      const cut = await streams[2]!.endedWithin(10_000);
      expect(cut).toBeLessThan(Infinity);
      const back = await until(
        "B's app usable again",
        async () => ((await viaClient(bt.port, '/', 1))?.includes(NONCE) ? Date.now() : undefined),
        15_000,
        50,
      );
      log.push(
        `another customer's open download was cut ${cut - since} ms after the reset; their app was usable again ${back - cut} ms after the cut (the core restarted at +${coreRestarts.at(-1)! - since} ms)`,
      );
      await until(
        'the agent loaded everyone again',
        async () => /restarted as asked.*"interruptedMs":\d+/.test(agent!.output()),
        10_000,
      );
      log.push(`agent: ${/\{[^\n]*restarted as asked[^\n]*\}/.exec(agent!.output())?.[0]}`);
    } finally {
      for (const s of streams) s.child.kill('SIGTERM');
    }
  });
});
