import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderWgConfig, type WgDevice, type WgOverview } from '@warren/contract';
import { type TestClient, createTestApp, type TestApp } from '../../apps/api/test/helpers.js';
import { addLocation, addNode } from '../../apps/api/src/modules/nodes/admin.js';
import { type Background, background, hasTool, inNs, run, setupNode, stopWireguardGo, until } from './netns.js';
import { payingUser } from './paying-user.js';

/** The agent reads its node token from a file (mode 600): a command line is visible to every user in ps. */
function writeToken(dir: string, token: string): string {
  const file = path.join(dir, 'node-token');
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return file;
}

/**
 * The VPN end to end, in network namespaces made for this test: a "server" namespace runs
 * wireguard-go, the agent and a web page; a "client" namespace joined to it by a veth pair brings
 * up the config a paying user got from the API, and fetches the page through the tunnel. Revoking
 * the device, and separately the subscription running out, must stop the traffic within 5 s.
 * Addresses exist only inside the two namespaces; nothing is sent anywhere else.
 */
const id = String(process.pid % 100_000);
const NS_SRV = `warren-srv-${id}`;
const NS_CLI = `warren-cli-${id}`;
const NS_NET = `warren-net-${id}`;
const IF_SRV = `wrs${id}`;
const IF_CLI = `wrc${id}`;
const VETH_SRV = `wrv${id}s`;
const VETH_CLI = `wrv${id}c`;
const VETH_NET_SRV = `wrn${id}s`;
const VETH_NET = `wrn${id}n`;
/** The node's link to the "internet" namespace, and a web server there. */
const NET_SRV4 = '10.203.0.1';
const NET_WEB4 = '10.203.0.2';
const NET_SRV6 = 'fd00:203::1';
const NET_WEB6 = 'fd00:203::2';
const ZONE_DNS_IP = '10.250.0.53';
const UNDERLAY_SRV = '10.201.0.1';
const UNDERLAY_CLI = '10.201.0.2';
const WG_PORT = 51820;
const GATEWAY4 = '10.64.0.1';
const GATEWAY6 = 'fd77:6172:7265::1';
const PAGE_PORT = 8080;
const NONCE = `warren-tunnel-${Math.random().toString(36).slice(2)}`;
const STOP_WITHIN_MS = 5000;

let t: TestApp;
let tmp: string;
let agent: Background | undefined;
let page: Background | undefined;
let netPage: Background | undefined;
let zoneDns: Background | undefined;
let setupArgs: string[] = [];
let wgCli: Background | undefined;
const log: string[] = [];

function keyPair() {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  return {
    publicKey: publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64'),
    privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32).toString('base64'),
  };
}

/** One HTTP GET from the client namespace; the page body, or undefined when nothing came back in time. */
async function fetchThroughTunnel(host: string, timeoutMs = 700): Promise<string | undefined> {
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${PAGE_PORT}/`;
  const script = `fetch(${JSON.stringify(url)}, { signal: AbortSignal.timeout(${timeoutMs}) }).then((r) => r.text()).then((t) => process.stdout.write(t), () => process.exit(3))`;
  try {
    return await inNs(NS_CLI, process.execPath, ['-e', script], { timeoutMs: timeoutMs + 5000 });
  } catch {
    return undefined;
  }
}

/** Brings the client interface up with a config file as a user downloads it (wg-quick's Address/DNS handled here). */
async function useConfig(conf: string): Promise<void> {
  const address = /^Address = (.+)$/m
    .exec(conf)![1]!
    .split(',')
    .map((s) => s.trim());
  const stripped = conf.replace(/^(Address|DNS) = .*\n/gm, '');
  const file = path.join(tmp, 'client.conf');
  fs.writeFileSync(file, stripped, { mode: 0o600 });
  await inNs(NS_CLI, 'wg', ['setconf', IF_CLI, file]);
  await inNs(NS_CLI, 'ip', ['address', 'flush', 'dev', IF_CLI]);
  // nodad: the address is usable at once (no duplicate-address-detection delay on a point-to-point tunnel).
  for (const a of address)
    await inNs(
      NS_CLI,
      'ip',
      a.includes(':') ? ['-6', 'address', 'add', a, 'dev', IF_CLI, 'nodad'] : ['address', 'add', a, 'dev', IF_CLI],
    );
  await inNs(NS_CLI, 'ip', ['link', 'set', IF_CLI, 'up']);
  // Only the VPN's own ranges go through the tunnel here; the underlay stays on the veth.
  await inNs(NS_CLI, 'ip', ['route', 'replace', '10.64.0.0/10', 'dev', IF_CLI]);
  await inNs(NS_CLI, 'ip', ['-6', 'route', 'replace', 'fd77:6172:7265::/48', 'dev', IF_CLI]);
  // And the "internet" namespace, reachable only through the node.
  await inNs(NS_CLI, 'ip', ['route', 'replace', `${NET_WEB4}/32`, 'dev', IF_CLI]);
  await inNs(NS_CLI, 'ip', ['-6', 'route', 'replace', `${NET_WEB6}/128`, 'dev', IF_CLI]);
}

/** Resolves a name from the client namespace with the given resolver (reached through the tunnel). */
async function resolveInClient(server: string, name: string): Promise<string> {
  const script = `const r = new (require('node:dns').promises.Resolver)({ timeout: 2000, tries: 1 }); r.setServers([${JSON.stringify(server)}]);
    r.resolve4(${JSON.stringify(name)}).then((a) => process.stdout.write(a.join(',')), (e) => process.stdout.write(e.code))`;
  return inNs(NS_CLI, process.execPath, ['-e', script], { timeoutMs: 8000 });
}

async function serverPeers(): Promise<string[]> {
  return (await inNs(NS_SRV, 'wg', ['show', IF_SRV, 'peers'])).split('\n').filter(Boolean);
}

/**
 * Time from `since` until the page stops coming through: the first of three misses in a row
 * that all started after `since` (a single slow probe on a busy machine is not a stop). Bounded.
 */
async function timeUntilTrafficStops(since: number): Promise<number> {
  const deadline = since + STOP_WITHIN_MS + 5000;
  let firstMiss: number | undefined;
  let misses = 0;
  while (Date.now() < deadline) {
    const attemptAt = Date.now();
    const body = await fetchThroughTunnel(GATEWAY4, 1000);
    if (body?.includes(NONCE) || attemptAt < since) {
      firstMiss = undefined;
      misses = 0;
    } else {
      firstMiss ??= attemptAt;
      if (++misses >= 3) return firstMiss - since;
    }
  }
  return Infinity;
}

let user: TestClient;
let location: WgOverview['locations'][number];

beforeAll(async () => {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) missing.push('root (network namespaces)');
  for (const [tool, args] of [
    ['ip', ['-V']],
    ['wg', ['--version']],
    ['wireguard-go', ['--version']],
    ['nft', ['--version']],
    ['dnsmasq', ['--version']],
  ] as const)
    if (!(await hasTool(tool, [...args]))) missing.push(tool);
  if (!fs.existsSync('/dev/net/tun')) missing.push('/dev/net/tun');
  if (missing.length)
    throw new Error(
      `The tunnel test needs: ${missing.join(', ')} (apt-get install -y iproute2 wireguard-tools wireguard-go nftables dnsmasq-base)`,
    );

  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-tunnel-'));
  // Namespaces and the veth between them; addresses exist only inside.
  await run('ip', ['netns', 'add', NS_SRV]);
  await run('ip', ['netns', 'add', NS_CLI]);
  await run('ip', ['-n', NS_SRV, 'link', 'add', VETH_SRV, 'type', 'veth', 'peer', 'name', VETH_CLI, 'netns', NS_CLI]);
  for (const [ns, dev, addr] of [
    [NS_SRV, VETH_SRV, UNDERLAY_SRV],
    [NS_CLI, VETH_CLI, UNDERLAY_CLI],
  ] as const) {
    await run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    await run('ip', ['-n', ns, 'address', 'add', `${addr}/30`, 'dev', dev]);
    await run('ip', ['-n', ns, 'link', 'set', dev, 'up']);
  }

  // The "internet" beyond the node: a third namespace that knows no route to the VPN's pools, so a
  // page there answers a client only through the node's forwarding and NAT.
  await run('ip', ['netns', 'add', NS_NET]);
  await run('ip', [
    '-n',
    NS_SRV,
    'link',
    'add',
    VETH_NET_SRV,
    'type',
    'veth',
    'peer',
    'name',
    VETH_NET,
    'netns',
    NS_NET,
  ]);
  for (const [ns, dev, a4, a6] of [
    [NS_SRV, VETH_NET_SRV, NET_SRV4, NET_SRV6],
    [NS_NET, VETH_NET, NET_WEB4, NET_WEB6],
  ] as const) {
    await run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    await run('ip', ['-n', ns, 'address', 'add', `${a4}/30`, 'dev', dev]);
    await run('ip', ['-n', ns, '-6', 'address', 'add', `${a6}/64`, 'dev', dev, 'nodad']);
    await run('ip', ['-n', ns, 'link', 'set', dev, 'up']);
  }
  // It tells each visitor the address it came from: the node's, when NAT works.
  const netScript = `const http = require('node:http');
    const serve = (host) => new Promise((ok) => http.createServer((q, r) => r.end(q.socket.remoteAddress)).listen(${PAGE_PORT}, host, ok));
    Promise.all([serve(${JSON.stringify(NET_WEB4)}), serve(${JSON.stringify(NET_WEB6)})]).then(() => console.log('internet listening'));`;
  netPage = await background('ip', ['netns', 'exec', NS_NET, process.execPath, '-e', netScript], /internet listening/);
  // The upstream resolver the node's resolver asks: a zone with one name, on the server's loopback.
  await run('ip', ['-n', NS_SRV, 'address', 'add', `${ZONE_DNS_IP}/32`, 'dev', 'lo']);
  zoneDns = await background(
    'ip',
    [
      'netns',
      'exec',
      NS_SRV,
      'dnsmasq',
      '--keep-in-foreground',
      '--conf-file=/dev/null',
      '--log-facility=-',
      '--no-hosts',
      '--no-resolv',
      '--bind-interfaces',
      `--listen-address=${ZONE_DNS_IP}`,
      '--pid-file=',
      '--user=root',
      `--address=/page.warren.test/${NET_WEB4}`,
    ],
    /started, version/,
  );

  // The API, on a unix socket (the namespaces share the file system, not the network).
  t = await createTestApp({ LOG_LEVEL: 'warn' });
  const socket = path.join(tmp, 'api.sock');
  await t.app.listen({ path: socket });
  await addLocation(t.app.db, {
    slug: 'zz-lab',
    countryCode: 'ZZ',
    country: { en: 'Tunnel Lab', ru: 'Лаборатория', zh: '实验室' },
    city: { en: 'Namespace', ru: 'Неймспейс', zh: '命名空间' },
    latitude: 0,
    longitude: 0,
    premium: true,
  });
  const { token } = await addNode(t.app.db, {
    location: 'zz-lab',
    name: 'zz-lab-1',
    endpointHost: UNDERLAY_SRV,
    listenPort: WG_PORT,
  });

  // The node, as the README says: the token in its file, then one command (WireGuard and the resolver).
  setupArgs = [
    '--api-socket',
    socket,
    '--token-file',
    writeToken(tmp, token),
    '--interface',
    IF_SRV,
    '--port',
    String(WG_PORT),
    '--services',
    'dns',
    '--dns-upstream',
    ZONE_DNS_IP,
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
  log.push(`setup (first run):\n${setup.output}`);
  expect(setup.output).toMatch(/^interface\s+changed: create/m);
  expect(setup.output).not.toContain('nothing to change');
  const serverPublicKey = (await inNs(NS_SRV, 'wg', ['show', IF_SRV, 'public-key'])).trim();
  // Started as setup said, with the test's shorter intervals.
  const [node, ...agentArgs] = setup.start;
  agent = await background(
    'ip',
    ['netns', 'exec', NS_SRV, node!, ...agentArgs, '--report-interval', '2', '--wait', '25'],
    /"msg":"applied"/,
    30_000,
  );
  // The agent reports the interface's key and port: configs handed out must carry them.
  await until(
    'node key reported by the agent',
    async () =>
      (
        await t.app.db.query<{ public_key: string | null }>(`select public_key from vpn_nodes where name = 'zz-lab-1'`)
      )[0]?.public_key === serverPublicKey,
    10_000,
  );

  // The page, reachable only on the server's tunnel addresses.
  const pageScript = `const http = require('node:http');
    const serve = (host) => new Promise((ok) => http.createServer((q, r) => r.end(${JSON.stringify(NONCE)})).listen(${PAGE_PORT}, host, ok));
    Promise.all([serve(${JSON.stringify(GATEWAY4)}), serve(${JSON.stringify(GATEWAY6)})]).then(() => console.log('page listening'));`;
  page = await background('ip', ['netns', 'exec', NS_SRV, process.execPath, '-e', pageScript], /page listening/);

  // A user who registers and pays through the API (sandbox provider: the hosted page, then a signed webhook).
  user = await payingUser(t.app);
  const me = (await user.get('/api/users/info/get')).json().data;
  expect(me).toMatchObject({ accountStatus: 'Active', subscriptionData: { tariffKey: '1-year' } });

  wgCli = await background('ip', ['netns', 'exec', NS_CLI, 'wireguard-go', '-f', IF_CLI], null);
  await until('client interface', () => inNs(NS_CLI, 'wg', ['show', IF_CLI]).then(() => true), 10_000);
}, 120_000);

afterAll(async () => {
  for (const p of [agent, page, netPage, zoneDns, wgCli]) await p?.stop().catch(() => undefined);
  if (agent) log.push(`agent output:\n${agent.output().slice(-4000)}`);
  await stopWireguardGo(NS_SRV, IF_SRV);
  for (const ns of [NS_CLI, NS_SRV, NS_NET]) await run('ip', ['netns', 'delete', ns]).catch(() => undefined);
  await t?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  console.log(log.filter((l) => process.env.TUNNEL_DEBUG || !l.startsWith('agent output')).join('\n'));
});

/** The user's side, as the web page does it: key pair made locally, public key to the API, config built from the overview. */
async function newDevice(name: string): Promise<{ device: WgDevice; conf: string }> {
  const keys = keyPair();
  const res = await user.post('/api/setup/wg/devices/add', { name, publicKey: keys.publicKey });
  expect(res.statusCode, res.body).toBe(201);
  const device = res.json().data.device as WgDevice;
  const overview = (await user.get('/api/setup/wg/get')).json().data as WgOverview;
  location = overview.locations.find((l) => l.slug === 'zz-lab')!;
  expect(location).toMatchObject({ available: true, endpoint: `${UNDERLAY_SRV}:${WG_PORT}` });
  const conf = renderWgConfig({
    privateKey: keys.privateKey,
    addresses: [device.ipv4, device.ipv6],
    dns: overview.dns,
    serverPublicKey: location.publicKey!,
    endpoint: location.endpoint!,
    allowedIps: overview.allowedIps,
    title: `${location.country}, ${location.city}`,
  });
  return { device, conf };
}

describe('WireGuard tunnel through a real node', () => {
  it('reaches the internet through the node (forwarding and NAT) and resolves names with the resolver the config names', async () => {
    const { conf } = await newDevice('Desktop');
    expect(conf).toContain(`DNS = ${GATEWAY4}, ${GATEWAY6}`);
    await useConfig(conf);
    // The page beyond the node sees the node's address, not the client's: masqueraded, IPv4 and IPv6.
    const seen4 = await until(
      'internet page through the tunnel (IPv4)',
      async () => fetchThroughTunnel(NET_WEB4, 1000),
      10_000,
      100,
    );
    expect(seen4.replace(/^::ffff:/, '')).toBe(NET_SRV4);
    expect(
      await until('internet page through the tunnel (IPv6)', async () => fetchThroughTunnel(NET_WEB6, 1000), 5000, 100),
    ).toBe(NET_SRV6);
    // The resolver on the gateway addresses, which the config names as its DNS.
    expect(
      await until(
        'name resolved by the node (IPv4 resolver)',
        async () => (await resolveInClient(GATEWAY4, 'page.warren.test')) === NET_WEB4,
        5000,
        200,
      ),
    ).toBe(true);
    expect(await resolveInClient(GATEWAY6, 'page.warren.test')).toBe(NET_WEB4);
  });

  it('carries traffic for a paying user, and stops within 5 s of revoking the device', async () => {
    const { device, conf } = await newDevice('Laptop');
    await useConfig(conf);
    const first = await until(
      'page through the tunnel (IPv4)',
      async () => (await fetchThroughTunnel(GATEWAY4))?.includes(NONCE),
      10_000,
      50,
    );
    expect(first).toBe(true);
    expect(
      await until(
        'page through the tunnel (IPv6)',
        async () => (await fetchThroughTunnel(GATEWAY6))?.includes(NONCE),
        5000,
        50,
      ),
    ).toBe(true);

    // The node reports the handshake and transfer; the user sees them.
    const seen = await until(
      'handshake reported to the API',
      async () => {
        const d = ((await user.get('/api/setup/wg/get')).json().data as WgOverview).devices.find(
          (x) => x.id === device.id,
        );
        return d?.lastHandshakeAt && d.rxBytes > 0 ? d : undefined;
      },
      10_000,
      250,
    );
    expect(seen.txBytes).toBeGreaterThan(0);

    const revokedAt = Date.now();
    expect((await user.post('/api/setup/wg/devices/revoke', { id: device.id })).statusCode).toBe(200);
    const stoppedAfter = await timeUntilTrafficStops(revokedAt);
    log.push(`revoke → traffic stopped after ${stoppedAfter} ms`);
    expect(stoppedAfter).toBeLessThanOrEqual(STOP_WITHIN_MS);
    expect(await serverPeers()).not.toContain(device.publicKey);
  });

  it('a rotated key works at once and the old one stops within 5 s; an expired key stops within 5 s of its end (issue 23)', async () => {
    const { device, conf } = await newDevice('Tablet');
    await useConfig(conf);
    await until(
      'page through the tunnel with the first key',
      async () => (await fetchThroughTunnel(GATEWAY4))?.includes(NONCE),
      10_000,
      50,
    );
    // The browser's rotation: a new key pair for the same device, the public key to the API.
    const keys = keyPair();
    const rotatedAt = Date.now();
    const res = await user.post('/api/setup/wg/devices/rotate', {
      id: device.id,
      previousKey: device.publicKey,
      publicKey: keys.publicKey,
    });
    expect(res.statusCode, res.body).toBe(200);
    const oldStopped = await timeUntilTrafficStops(rotatedAt);
    log.push(`rotate → the old key's traffic stopped after ${oldStopped} ms`);
    expect(oldStopped).toBeLessThanOrEqual(STOP_WITHIN_MS);
    expect(await serverPeers()).not.toContain(device.publicKey);
    // The new file: the same addresses, the new private key.
    await useConfig(conf.replace(/^PrivateKey = .*$/m, `PrivateKey = ${keys.privateKey}`));
    await until(
      'page through the tunnel with the rotated key',
      async () => (await fetchThroughTunnel(GATEWAY4))?.includes(NONCE),
      10_000,
      50,
    );
    expect(await serverPeers()).toContain(keys.publicKey);

    // A lifetime, then time passes: the key ends in 2 seconds (the clock alone drops the peer).
    expect((await user.post('/api/setup/wg/devices/lifetime', { id: device.id, days: 1 })).statusCode).toBe(200);
    const [{ ends }] = (await t.app.db.query<{ ends: number }>(
      `update wg_devices set key_expires_at = now() + interval '2 seconds' where id = $1
       returning floor(extract(epoch from key_expires_at) * 1000)::float8 as ends`,
      [device.id],
    )) as [{ ends: number }];
    expect(await fetchThroughTunnel(GATEWAY4, 1000)).toContain(NONCE); // not yet
    const expiredAfter = await timeUntilTrafficStops(ends);
    log.push(`key expiry → traffic stopped ${expiredAfter} ms after the key's end`);
    expect(expiredAfter).toBeLessThanOrEqual(STOP_WITHIN_MS);
    expect(await serverPeers()).not.toContain(keys.publicKey);
  });

  it('stops carrying traffic within 5 s of the subscription running out', async () => {
    const { device, conf } = await newDevice('Phone');
    await useConfig(conf);
    await until(
      'page through the tunnel with the new device',
      async () => (await fetchThroughTunnel(GATEWAY4))?.includes(NONCE),
      10_000,
      50,
    );

    // Time passes: the paid year ends in 2 seconds (billing's expiry job is not needed for access to end).
    const [{ ends }] = (await t.app.db.query<{ ends: number }>(
      `update users set subscription_expires_at = now() + interval '2 seconds' where id = (select user_id from wg_devices where id = $1)
       returning floor(extract(epoch from subscription_expires_at) * 1000)::float8 as ends`,
      [device.id],
    )) as [{ ends: number }];
    expect(await fetchThroughTunnel(GATEWAY4, 1000)).toContain(NONCE); // still paid
    const stoppedAfter = await timeUntilTrafficStops(ends);
    log.push(`expiry → traffic stopped ${stoppedAfter} ms after the subscription ended`);
    expect(stoppedAfter).toBeLessThanOrEqual(STOP_WITHIN_MS);
    expect(await serverPeers()).not.toContain(device.publicKey);
    // Billing's expiry job may already have moved the account to the free plan: either way, no premium location.
    const me = (await user.get('/api/setup/wg/get')).json().data as WgOverview;
    expect(me.access).not.toBe('paid');
    expect(me.locations.find((l) => l.slug === 'zz-lab')).toMatchObject({ available: false, endpoint: null });
  });

  it('setup run again changes nothing; a change made by hand is repaired, and only it', async () => {
    const table = await inNs(NS_SRV, 'nft', ['list', 'table', 'inet', 'warren']);
    expect(table).toMatch(/ip saddr 10\.64\.0\.0\/10 oifname != "[^"]+" masquerade/);
    expect(table).toMatch(/ip6 saddr fd77:6172:7265::\/48 oifname != "[^"]+" masquerade/);
    const iface = async () => ({
      addresses: await inNs(NS_SRV, 'ip', ['-brief', 'address', 'show', 'dev', IF_SRV]),
      port: await inNs(NS_SRV, 'wg', ['show', IF_SRV, 'listen-port']),
      key: await inNs(NS_SRV, 'wg', ['show', IF_SRV, 'public-key']),
    });
    const before = await iface();

    const again = await setupNode(NS_SRV, setupArgs);
    expect(again.output).toContain('nothing to change');
    expect(again.output).not.toMatch(/changed:/);
    expect(await inNs(NS_SRV, 'nft', ['list', 'table', 'inet', 'warren'])).toBe(table);
    expect(await iface()).toEqual(before);
    // The units it wrote are ones systemd accepts (unknown keys, missing programs and syntax are errors).
    if (await hasTool('systemd-analyze', ['--version'])) {
      const units = fs.readdirSync(path.join(tmp, 'systemd')).map((f) => path.join(tmp, 'systemd', f));
      expect(units).toHaveLength(3);
      const verdict = await new Promise<string>((resolve) =>
        execFile('systemd-analyze', ['verify', ...units], (err, _out, stderr) =>
          resolve(`${err ? `exit ${err.code} ` : ''}${stderr}`.trim()),
        ),
      );
      expect(verdict).toBe('');
    } else log.push('systemd-analyze not installed: units not verified');

    // Someone removes the NAT table and the IPv6 gateway: the next run puts back exactly those.
    await inNs(NS_SRV, 'nft', ['delete', 'table', 'inet', 'warren']);
    await inNs(NS_SRV, 'ip', ['-6', 'address', 'del', `${GATEWAY6}/48`, 'dev', IF_SRV]);
    const repair = await setupNode(NS_SRV, setupArgs);
    log.push(`setup after a change by hand:\n${repair.output}`);
    expect(repair.output.match(/^.*changed:.*$/gm)).toEqual([
      expect.stringMatching(/^gateway addresses /),
      expect.stringMatching(/^nat /),
    ]);
    expect(await inNs(NS_SRV, 'nft', ['list', 'table', 'inet', 'warren'])).toBe(table);
    expect(await iface()).toEqual(before);
  });
});
