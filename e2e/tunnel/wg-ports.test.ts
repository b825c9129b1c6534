import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointWithPort, renderWgConfig, type WgDevice, type WgOverview } from '@warren/contract';
import { type TestClient, createTestApp, type TestApp } from '../../apps/api/test/helpers.js';
import { addLocation, addNode } from '../../apps/api/src/modules/nodes/admin.js';
import { type Background, background, hasTool, inNs, run, setupNode, stopWireguardGo, until } from './netns.js';
import { payingUser } from './paying-user.js';

/**
 * WireGuard on UDP 443 and 53 (issue 23), end to end in network namespaces made for this test: a
 * "server" namespace set up by `warren-agent setup --wg-extra-ports 53,443` (wireguard-go listening
 * on 51822 only, its resolver on) with its agent; a client namespace behind a firewall that lets
 * only UDP 53 and 443 out (a hotel or office network), running wireguard-go with the config the
 * API hands out for the chosen port. The handshake and the traffic go through the node's redirect
 * to the WireGuard port; the tunnel's own DNS (port 53 on the gateway, inside the tunnel) and a TCP
 * service on 443 of the public address are not taken by it; the agent reports the ports only while
 * their rule is in place. Addresses exist only inside the namespaces.
 */
const id = String(process.pid % 100_000);
const NS_SRV = `warren-psrv-${id}`;
const NS_CLI = `warren-pcli-${id}`;
const IF_SRV = `wps${id}`;
const IF_CLI = `wpc${id}`;
const VETH: [string, string] = [`wpv${id}s`, `wpv${id}c`];
const NET: [string, string] = ['10.206.1.1', '10.206.1.2'];
const WG_PORT = 51822;
const UNDERLAY_SRV = '10.206.0.1';
const GATEWAY4 = '10.64.0.1';
const ZONE_DNS_IP = '10.250.0.53';
const ANSWER = '10.250.0.80';
const PAGE_IP = '10.250.0.80';
const PAGE_PORT = 8080;
const NONCE = `wg-ports-${id}-${Date.now()}`;

let t: TestApp;
let tmp: string;
let user: TestClient;
let setupArgs: string[] = [];
let agent: Background | undefined;
let zoneDns: Background | undefined;
let servers: Background | undefined;
let client: Background | undefined;
let keys: { publicKey: string; privateKey: string };
let device: WgDevice;
const log: string[] = [];

function keyPair() {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  return {
    publicKey: publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64'),
    privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32).toString('base64'),
  };
}

/** One HTTP GET from the client namespace: the body, or undefined when nothing came back in time. */
async function fetchFromClient(url: string, timeoutMs = 1500): Promise<string | undefined> {
  const script = `fetch(${JSON.stringify(url)}, { signal: AbortSignal.timeout(${timeoutMs}) }).then((r) => r.text()).then((t) => process.stdout.write(t), () => process.exit(3))`;
  try {
    return await inNs(NS_CLI, process.execPath, ['-e', script], { timeoutMs: timeoutMs + 5000 });
  } catch {
    return undefined;
  }
}

/** A name through the tunnel with the resolver the config names (the node's gateway, port 53 inside the tunnel). */
async function resolveThroughTunnel(name: string): Promise<string> {
  const script = `const r = new (require('node:dns').promises.Resolver)({ timeout: 1500, tries: 1 }); r.setServers([${JSON.stringify(GATEWAY4)}]);
    r.resolve4(${JSON.stringify(name)}).then((a) => process.stdout.write(a.join(',')), (e) => process.stdout.write(e.code))`;
  return inNs(NS_CLI, process.execPath, ['-e', script], { timeoutMs: 8000 });
}

const overview = async (query = '') => {
  const res = await user.get(`/api/setup/wg/get${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().data as WgOverview).locations.find((l) => l.slug === 'zz-ports')!;
};
const latestHandshake = async () =>
  Number((await inNs(NS_CLI, 'wg', ['show', IF_CLI, 'latest-handshakes'])).trim().split(/\s+/)[1] ?? 0);
/** Packets the client's firewall dropped (anything to the node but UDP 53/443). */
const dropped = async () =>
  Number(/counter packets (\d+)/.exec(await inNs(NS_CLI, 'nft', ['list', 'chain', 'inet', 'hotel', 'out']))?.[1]);

/** The config the customer downloads for `port` (as the page builds it), loaded into the client's interface. */
async function useConfig(port: number | null): Promise<string> {
  const [loc, all] = [await overview(port === null ? '' : `?port=${port}`), await overview()];
  const conf = renderWgConfig({
    privateKey: keys.privateKey,
    addresses: [device.ipv4, device.ipv6],
    dns: [GATEWAY4],
    serverPublicKey: loc.publicKey!,
    endpoint: port === null ? all.endpoint! : endpointWithPort(all.endpoint!, port),
    title: 'test',
  });
  // The API's own endpoint on that port and the page's are the same.
  if (port !== null) expect(conf).toContain(`Endpoint = ${loc.endpoint}\n`);
  const file = path.join(tmp, 'client.conf');
  fs.writeFileSync(file, conf.replace(/^(Address|DNS) = .*\n/gm, ''), { mode: 0o600 });
  await inNs(NS_CLI, 'wg', ['setconf', IF_CLI, file]);
  return conf;
}

beforeAll(async () => {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) missing.push('root (network namespaces)');
  for (const [tool, args] of [
    ['ip', ['-V']],
    ['wg', ['--version']],
    ['wireguard-go', ['--version']],
    ['dnsmasq', ['--version']],
    ['nft', ['--version']],
  ] as const)
    if (!(await hasTool(tool, [...args]))) missing.push(tool);
  if (!fs.existsSync('/dev/net/tun')) missing.push('/dev/net/tun');
  if (missing.length)
    throw new Error(
      `The WireGuard ports test needs: ${missing.join(', ')} (apt-get install -y iproute2 wireguard-tools wireguard-go dnsmasq-base nftables)`,
    );

  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-wgports-'));
  await run('ip', ['netns', 'add', NS_SRV]);
  await run('ip', ['netns', 'add', NS_CLI]);
  for (const ns of [NS_SRV, NS_CLI]) await run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
  for (const a of [UNDERLAY_SRV, ZONE_DNS_IP, PAGE_IP])
    await run('ip', ['-n', NS_SRV, 'address', 'add', `${a}/32`, 'dev', 'lo']);
  await run('ip', ['-n', NS_SRV, 'link', 'add', VETH[0], 'type', 'veth', 'peer', 'name', VETH[1], 'netns', NS_CLI]);
  await run('ip', ['-n', NS_SRV, 'address', 'add', `${NET[0]}/30`, 'dev', VETH[0]]);
  await run('ip', ['-n', NS_SRV, 'link', 'set', VETH[0], 'up']);
  await run('ip', ['-n', NS_CLI, 'address', 'add', `${NET[1]}/30`, 'dev', VETH[1]]);
  await run('ip', ['-n', NS_CLI, 'link', 'set', VETH[1], 'up']);
  await run('ip', ['-n', NS_CLI, 'route', 'add', `${UNDERLAY_SRV}/32`, 'via', NET[0]]);
  // The client's network lets only UDP 53 and 443 out to the node (and TCP, for the check that TCP 443 is not taken).
  await inNs(NS_CLI, 'nft', ['-f', '-'], {
    input: `table inet hotel {
      chain out {
        type filter hook output priority filter; policy accept;
        oifname "${VETH[1]}" ip daddr ${UNDERLAY_SRV} udp dport != { 53, 443 } counter drop
      }
    }\n`,
  });

  // The "internet" behind the node: a resolver where every *.warren.test name exists, a page, and
  // a TCP service on 443 of the node's public address (as the stealth core is).
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
      `--address=/warren.test/${ANSWER}`,
    ],
    /started, version/,
  );
  const serversScript = `const http = require('node:http');
    const serve = (host, port, body) => new Promise((ok) => http.createServer((q, r) => r.end(body)).listen(port, host, ok));
    Promise.all([serve(${JSON.stringify(PAGE_IP)}, ${PAGE_PORT}, ${JSON.stringify(NONCE)}), serve(${JSON.stringify(UNDERLAY_SRV)}, 443, 'tcp 443 ' + ${JSON.stringify(NONCE)})])
      .then(() => console.log('servers listening'));`;
  servers = await background(
    'ip',
    ['netns', 'exec', NS_SRV, process.execPath, '-e', serversScript],
    /servers listening/,
  );

  t = await createTestApp({ LOG_LEVEL: 'warn' });
  const socket = path.join(tmp, 'api.sock');
  await t.app.listen({ path: socket });
  await addLocation(t.app.db, {
    slug: 'zz-ports',
    countryCode: 'ZZ',
    country: { en: 'Port Lab', ru: 'Лаборатория портов', zh: '端口实验室' },
    city: { en: 'Namespace', ru: 'Неймспейс', zh: '命名空间' },
    latitude: 0,
    longitude: 0,
    premium: true,
  });
  const { token } = await addNode(t.app.db, {
    location: 'zz-ports',
    name: 'zz-ports-1',
    endpointHost: UNDERLAY_SRV,
    listenPort: WG_PORT,
  });
  const tokenFile = path.join(tmp, 'node-token');
  fs.writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  setupArgs = [
    '--api-socket',
    socket,
    '--token-file',
    tokenFile,
    '--interface',
    IF_SRV,
    '--port',
    String(WG_PORT),
    '--wg-extra-ports',
    '53,443',
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
  log.push(`setup:\n${setup.output}`);
  // The plan says which ports reach WireGuard.
  expect(setup.output).toContain(`WireGuard also on UDP 53, 443 (redirected to ${WG_PORT})`);
  const [node, ...agentArgs] = setup.start;
  agent = await background(
    'ip',
    ['netns', 'exec', NS_SRV, node!, ...agentArgs, '--report-interval', '1', '--wait', '25'],
    /"msg":"applied"/,
    30_000,
  );

  user = await payingUser(t.app);
  keys = keyPair();
  const res = await user.post('/api/setup/wg/devices/add', { name: 'Laptop', publicKey: keys.publicKey });
  expect(res.statusCode, res.body).toBe(201);
  device = res.json().data.device as WgDevice;
  client = await background('ip', ['netns', 'exec', NS_CLI, 'wireguard-go', '-f', IF_CLI], null);
  await until('client interface', () => inNs(NS_CLI, 'wg', ['show', IF_CLI]).then(() => true), 10_000);
  await inNs(NS_CLI, 'ip', ['address', 'add', device.ipv4, 'dev', IF_CLI]);
  await inNs(NS_CLI, 'ip', ['link', 'set', IF_CLI, 'up']);
  await inNs(NS_CLI, 'ip', ['route', 'replace', '10.64.0.0/10', 'dev', IF_CLI]);
  await inNs(NS_CLI, 'ip', ['route', 'replace', `${PAGE_IP}/32`, 'dev', IF_CLI]);
}, 120_000);

afterAll(async () => {
  for (const p of [agent, zoneDns, servers, client]) await p?.stop().catch(() => undefined);
  if (agent) log.push(`agent output:\n${agent.output().slice(-4000)}`);
  await stopWireguardGo(NS_SRV, IF_SRV);
  await stopWireguardGo(NS_CLI, IF_CLI);
  for (const ns of [NS_CLI, NS_SRV]) await run('ip', ['netns', 'delete', ns]).catch(() => undefined);
  await t?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  if (process.env.TUNNEL_DEBUG) console.log(log.join('\n'));
});

describe('WireGuard on UDP 443 and 53 through the node’s redirect (issue 23)', () => {
  it('the agent reports the ports whose rule is in place, and the API offers them for the location', async () => {
    const loc = await until(
      'the ports reported',
      async () => {
        const l = await overview();
        return l.ports?.length === 3 ? l : undefined;
      },
      15_000,
      200,
    );
    expect(loc.endpoint).toBe(`${UNDERLAY_SRV}:${WG_PORT}`);
    expect(loc.ports).toEqual([WG_PORT, 53, 443]);
    // Only the one listen port on the interface: the others are the redirect's.
    expect((await inNs(NS_SRV, 'wg', ['show', IF_SRV, 'listen-port'])).trim()).toBe(String(WG_PORT));
  });

  it('the default port is blocked by the client’s network: no handshake', async () => {
    const before = await dropped();
    await useConfig(null);
    expect(await fetchFromClient(`http://${PAGE_IP}:${PAGE_PORT}/`, 1000)).toBeUndefined();
    // The handshake went out to the WireGuard port and the network dropped it.
    await until('the handshake dropped', async () => (await dropped()) > before, 5000);
    expect(await latestHandshake()).toBe(0);
  });

  it('on UDP 443 the client connects and carries traffic; the tunnel’s resolver still answers on 53 inside it', async () => {
    const conf = await useConfig(443);
    expect(conf).toContain(`Endpoint = ${UNDERLAY_SRV}:443\n`);
    const droppedBefore = await dropped();
    const body = await until(
      'a page through the tunnel on 443',
      () => fetchFromClient(`http://${PAGE_IP}:${PAGE_PORT}/`),
      15_000,
      200,
    );
    expect(body).toBe(NONCE);
    expect(await latestHandshake()).toBeGreaterThan(0);
    // Nothing went out on another port (the firewall dropped nothing more).
    expect(await dropped()).toBe(droppedBefore);
    // The node's WireGuard saw the client come from its veth address (the redirect changes the port it reached, not who).
    expect(await inNs(NS_SRV, 'wg', ['show', IF_SRV, 'endpoints'])).toContain(`${NET[1]}:`);
    // The answers came from 443 (conntrack undoes the redirect): the client kept that endpoint rather than roaming to the WireGuard port.
    expect((await inNs(NS_CLI, 'wg', ['show', IF_CLI, 'endpoints'])).trim()).toMatch(
      new RegExp(`${UNDERLAY_SRV.replaceAll('.', '\\.')}:443$`),
    );
    // The config's resolver on the gateway, port 53 inside the tunnel, is the node's resolver, not WireGuard.
    expect(
      await until(
        'a name through the tunnel',
        async () => (await resolveThroughTunnel('page.warren.test')) === ANSWER,
        10_000,
        200,
      ),
    ).toBe(true);
    // TCP 443 on the public address is the service there (the stealth core's port), not redirected.
    expect(await fetchFromClient(`http://${UNDERLAY_SRV}:443/`)).toBe(`tcp 443 ${NONCE}`);
  });

  it('on UDP 53 too', async () => {
    const conf = await useConfig(53);
    expect(conf).toContain(`Endpoint = ${UNDERLAY_SRV}:53\n`);
    // A new handshake on the new port: wireguard-go's session is kept, so look for traffic received on it instead.
    const rx = async () => Number((await inNs(NS_CLI, 'wg', ['show', IF_CLI, 'transfer'])).trim().split(/\s+/)[1] ?? 0);
    const before = await rx();
    const droppedBefore = await dropped();
    const body = await until(
      'a page through the tunnel on 53',
      () => fetchFromClient(`http://${PAGE_IP}:${PAGE_PORT}/`),
      15_000,
      200,
    );
    expect(body).toBe(NONCE);
    expect(await rx()).toBeGreaterThan(before);
    expect(await dropped()).toBe(droppedBefore);
    expect((await inNs(NS_CLI, 'wg', ['show', IF_CLI, 'endpoints'])).trim()).toMatch(
      new RegExp(`${UNDERLAY_SRV.replaceAll('.', '\\.')}:53$`),
    );
  });

  it('without the rule the ports are no longer reported nor offered; setup puts it back, and again changes nothing', async () => {
    await inNs(NS_SRV, 'nft', ['delete', 'chain', 'inet', 'warren', 'wg-ports']);
    await until('ports gone', async () => ((await overview()).ports?.length === 1 ? true : undefined), 15_000, 200);
    expect((await overview()).ports).toEqual([WG_PORT]);
    expect((await user.get('/api/setup/wg/get?port=443')).statusCode).toBe(422);
    const repair = await setupNode(NS_SRV, setupArgs);
    log.push(`setup after the chain was deleted:\n${repair.output}`);
    expect(repair.output).toMatch(/reload the table \(it was changed outside setup\); WireGuard also on UDP 53, 443/);
    await until('ports back', async () => ((await overview()).ports?.length === 3 ? true : undefined), 15_000, 200);
    const again = await setupNode(NS_SRV, setupArgs);
    expect(again.output).toContain('nothing to change');
    expect(again.output).not.toMatch(/changed:/);
  });
});
