import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AD_BLOCK_PATHS, type ServiceCredentials, type ServicesOverview } from '@warren/contract';
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
 * OpenVPN, SOCKS5 and the ad blocker end to end, with real clients in network namespaces made for
 * this test. The "server" namespace runs the agent (wireguard-go as in the tunnel test, plus the
 * Debian openvpn servers, dnsmasq resolvers and the SOCKS5 proxy it manages), a web page and a tiny
 * "internet" DNS zone (dnsmasq answering page.warren.test and ads.warren.test). The "client"
 * namespace runs the Debian openvpn client with a .ovpn downloaded through the API, and curl.
 * Addresses exist only inside the two namespaces; nothing is sent anywhere else.
 */
const id = String(process.pid % 100_000);
const NS_SRV = `warren-ssrv-${id}`;
const NS_CLI = `warren-scli-${id}`;
const IF_WG = `wss${id}`;
const VETH_SRV = `wsv${id}s`;
const VETH_CLI = `wsv${id}c`;
const NODE_IP = '10.202.0.1';
// The agent's Prometheus listener, inside the node's namespace.
const METRICS = '127.0.0.1:9471';
const CLIENT_IP = '10.202.0.2';
/** The "internet", on the server namespace's loopback: a web page and the authoritative DNS for the test names. */
const WEB_IP = '10.250.0.80';
const ZONE_DNS_IP = '10.250.0.53';
const PAGE_PORT = 8080;
const DNS_PLAIN = '10.255.53.1';
const DNS_FILTER = '10.255.53.2';
const NONCE = `warren-services-${Math.random().toString(36).slice(2)}`;

let t: TestApp;
let tmp: string;
let user: TestClient;
let creds: ServiceCredentials;
const procs: Background[] = [];
let agent: Background | undefined;
const log: string[] = [];

const usersDir = () => path.join(tmp, 'agent', 'services', 'users');
const nodeEntry = (username: string) => {
  try {
    return JSON.parse(fs.readFileSync(path.join(usersDir(), `${username}.json`), 'utf8')) as {
      adblock: boolean;
      verifier: string;
      /** The resolver OpenVPN pushes: the user's categories' (issue 23). */
      dns?: string;
    };
  } catch {
    return undefined;
  }
};

beforeAll(async () => {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) missing.push('root (network namespaces)');
  for (const [tool, args] of [
    ['ip', ['-V']],
    ['wg', ['--version']],
    ['wireguard-go', ['--version']],
    ['openvpn', ['--version']],
    ['dnsmasq', ['--version']],
    ['curl', ['--version']],
    ['nft', ['--version']],
  ] as const) {
    if (!(await hasTool(tool, [...args]))) missing.push(tool);
  }
  if (!fs.existsSync('/dev/net/tun')) missing.push('/dev/net/tun');
  if (missing.length)
    throw new Error(
      `The services test needs: ${missing.join(', ')} (apt-get install -y iproute2 wireguard-tools wireguard-go openvpn dnsmasq-base curl nftables)`,
    );

  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-services-'));
  await run('ip', ['netns', 'add', NS_SRV]);
  await run('ip', ['netns', 'add', NS_CLI]);
  await run('ip', ['-n', NS_SRV, 'link', 'add', VETH_SRV, 'type', 'veth', 'peer', 'name', VETH_CLI, 'netns', NS_CLI]);
  for (const [ns, dev, addr] of [
    [NS_SRV, VETH_SRV, NODE_IP],
    [NS_CLI, VETH_CLI, CLIENT_IP],
  ] as const) {
    await run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    await run('ip', ['-n', ns, 'address', 'add', `${addr}/30`, 'dev', dev]);
    await run('ip', ['-n', ns, 'link', 'set', dev, 'up']);
  }
  // The client's only way out is the node, as on a home network; OpenVPN's redirect-gateway needs one.
  await run('ip', ['-n', NS_CLI, 'route', 'add', 'default', 'via', NODE_IP]);
  for (const a of [WEB_IP, ZONE_DNS_IP]) await run('ip', ['-n', NS_SRV, 'address', 'add', `${a}/32`, 'dev', 'lo']);

  const pageScript = `require('node:http').createServer((q, r) => r.end(${JSON.stringify(NONCE)})).listen(${PAGE_PORT}, ${JSON.stringify(WEB_IP)}, () => console.log('page listening'));`;
  procs.push(await background('ip', ['netns', 'exec', NS_SRV, process.execPath, '-e', pageScript], /page listening/));
  procs.push(
    await background(
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
        `--address=/page.warren.test/${WEB_IP}`,
        `--address=/ads.warren.test/${WEB_IP}`,
        // The shipped lists' check names (<category>.check.warren.test) exist upstream: a block is the node's doing.
        `--address=/check.warren.test/${WEB_IP}`,
      ],
      /started, version/,
    ),
  );
  fs.writeFileSync(path.join(tmp, 'blocklist.txt'), '# test blocklist\nads.warren.test\n0.0.0.0 tracker.warren.test\n');

  t = await createTestApp({ LOG_LEVEL: 'warn' });
  const socket = path.join(tmp, 'api.sock');
  await t.app.listen({ path: socket });
  await addLocation(t.app.db, {
    slug: 'zz-svc',
    countryCode: 'ZZ',
    country: { en: 'Services Lab', ru: 'Лаборатория', zh: '实验室' },
    city: { en: 'Namespace', ru: 'Неймспейс', zh: '命名空间' },
    latitude: 0,
    longitude: 0,
    premium: true,
  });
  const { token } = await addNode(t.app.db, { location: 'zz-svc', name: 'zz-svc-1', endpointHost: NODE_IP });

  // The node, with the one command the README gives (WireGuard, OpenVPN, SOCKS5 and the resolvers),
  // then the agent started as setup said.
  const setup = await setupNode(NS_SRV, [
    '--api-socket',
    socket,
    '--token-file',
    writeToken(tmp, token),
    '--interface',
    IF_WG,
    '--services',
    'openvpn,socks,dns',
    '--dns-upstream',
    ZONE_DNS_IP,
    '--blocklist',
    path.join(tmp, 'blocklist.txt'),
    '--etc-dir',
    path.join(tmp, 'etc'),
    '--state-dir',
    path.join(tmp, 'agent'),
    '--systemd-dir',
    path.join(tmp, 'systemd'),
    '--sysctl-dir',
    path.join(tmp, 'sysctl'),
  ]);
  expect(setup.output).toMatch(/^nat .*changed/m);
  const [node, ...agentArgs] = setup.start;
  agent = await background(
    'ip',
    ['netns', 'exec', NS_SRV, node!, ...agentArgs, '--report-interval', '5', '--wait', '25', '--metrics', METRICS],
    /"msg":"applied"/,
    60_000,
  );

  // A user who registers and pays through the sandbox, then opens the OpenVPN page.
  user = await payingUser(t.app);
  const o = (await user.get('/api/setup/services/get')).json().data as ServicesOverview;
  expect(o).toMatchObject({ access: 'paid', socksAvailable: true });
  expect(o.locations.find((l) => l.slug === 'zz-svc')).toMatchObject({
    available: true,
    nodes: [{ host: NODE_IP, udpPort: 1194, tcpPort: 443, socksPort: 1080 }],
  });
  creds = o.credentials;
  await until('credentials on the node', async () => nodeEntry(creds.username), 10_000);
}, 120_000);

afterAll(async () => {
  for (const p of [agent, ...procs.reverse()]) await p?.stop().catch(() => undefined);
  if (agent && process.env.TUNNEL_DEBUG) log.push(`agent output:\n${agent.output().slice(-6000)}`);
  await stopWireguardGo(NS_SRV, IF_WG);
  for (const ns of [NS_CLI, NS_SRV]) await run('ip', ['netns', 'delete', ns]).catch(() => undefined);
  await t?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  if (log.length) console.log(log.join('\n'));
});

async function download(protocol: 'udp' | 'tcp'): Promise<string> {
  const res = await user.get(`/api/setup/openvpn/config?location=zz-svc&protocol=${protocol}`);
  expect(res.statusCode, res.body).toBe(200);
  const file = path.join(tmp, `client-${protocol}.ovpn`);
  fs.writeFileSync(file, res.body, { mode: 0o600 });
  return file;
}

/** Runs the Debian openvpn client in the client namespace; resolves with its output once it is up or refused. */
async function connect(
  ovpn: string,
  c: ServiceCredentials,
): Promise<{ ok: boolean; pushedDns?: string; proc: Background; ms: number }> {
  const auth = path.join(tmp, `auth-${Math.random().toString(36).slice(2)}.txt`);
  fs.writeFileSync(auth, `${c.username}\n${c.password}\n`, { mode: 0o600 });
  const started = Date.now();
  const proc = await background(
    'ip',
    [
      'netns',
      'exec',
      NS_CLI,
      'openvpn',
      '--config',
      ovpn,
      '--auth-user-pass',
      auth,
      '--auth-retry',
      'none',
      '--verb',
      '3',
    ],
    /Initialization Sequence Completed|AUTH_FAILED/,
    30_000,
  ).catch(
    (err: Error) =>
      ({ output: () => err.message, stop: async () => undefined, child: undefined }) as unknown as Background,
  );
  const out = proc.output();
  const ok = out.includes('Initialization Sequence Completed');
  const pushedDns = /dhcp-option DNS ([\d.]+)/.exec(out)?.[1];
  return { ok, pushedDns, proc, ms: Date.now() - started };
}

/** The agent's warren_agent_sessions{protocol="openvpn"}, scraped inside the node's namespace. */
async function openvpnSessions(): Promise<number | undefined> {
  const text = await inNs(NS_SRV, 'curl', ['-sS', '--max-time', '3', `http://${METRICS}/metrics`], {
    timeoutMs: 8000,
  }).catch(() => '');
  const m = /^warren_agent_sessions\{protocol="openvpn"\} (\d+)$/m.exec(text);
  return m ? Number(m[1]) : undefined;
}

async function fetchInClient(url: string): Promise<string | undefined> {
  const script = `fetch(${JSON.stringify(url)}, { signal: AbortSignal.timeout(3000) }).then((r) => r.text()).then((t) => process.stdout.write(t), () => process.exit(3))`;
  return inNs(NS_CLI, process.execPath, ['-e', script], { timeoutMs: 8000 }).catch(() => undefined);
}

/** Resolves a name from the client namespace with the given resolver (reached through the tunnel). */
async function resolveInClient(server: string, name: string): Promise<string> {
  const script = `const r = new (require('node:dns').promises.Resolver)({ timeout: 2000, tries: 1 }); r.setServers([${JSON.stringify(server)}]);
    r.resolve4(${JSON.stringify(name)}).then((a) => process.stdout.write(a.join(',')), (e) => process.stdout.write(e.code))`;
  return inNs(NS_CLI, process.execPath, ['-e', script], { timeoutMs: 8000 });
}

/** curl --socks5-hostname user:pass@node:1080, as the issue writes it. Body on success, else `curl exit N`. */
async function curlSocks(c: ServiceCredentials, host: string): Promise<string> {
  try {
    return await inNs(
      NS_CLI,
      'curl',
      [
        '-sS',
        '--max-time',
        '8',
        '--socks5-hostname',
        `${c.username}:${c.password}@${NODE_IP}:1080`,
        `http://${host}:${PAGE_PORT}/`,
      ],
      { timeoutMs: 15_000 },
    );
  } catch (err) {
    return `curl failed: ${(err as Error).message.slice(-200)}`;
  }
}

async function setAdblock(on: boolean): Promise<void> {
  const res = await user.post('/api/setup/features/state', { id: 1, state: on });
  expect(res.statusCode, res.body).toBe(200);
  const since = Date.now();
  await until(
    `ad blocker ${on ? 'on' : 'off'} on the node`,
    async () => nodeEntry(creds.username)?.adblock === on,
    10_000,
  );
  log.push(`ad blocker ${on ? 'on' : 'off'} → on the node after ${Date.now() - since} ms`);
}

describe('OpenVPN through a real node', () => {
  it('connects over UDP with a downloaded .ovpn and the service credentials, and carries a page', async () => {
    const c = await connect(await download('udp'), creds);
    try {
      expect(c.ok, c.proc.output().slice(-2000)).toBe(true);
      log.push(`openvpn udp connected in ${c.ms} ms`);
      expect(
        await until(
          'page through the OpenVPN tunnel',
          async () => (await fetchInClient(`http://${WEB_IP}:${PAGE_PORT}/`))?.includes(NONCE),
          10_000,
          200,
        ),
      ).toBe(true);
      // Ad blocker off: the plain resolver is pushed and resolves everything.
      expect(c.pushedDns).toBe(DNS_PLAIN);
      expect(await resolveInClient(DNS_PLAIN, 'ads.warren.test')).toBe(WEB_IP);
      // The node's metrics count the session (issue 22: OpenVPN sessions were not counted).
      expect(
        await until('one OpenVPN session in the metrics', async () => (await openvpnSessions()) === 1, 10_000),
      ).toBe(true);
    } finally {
      await c.proc.stop();
    }
    expect(await until('no OpenVPN session in the metrics', async () => (await openvpnSessions()) === 0, 20_000)).toBe(
      true,
    );
  });

  it('connects over TCP too', async () => {
    const c = await connect(await download('tcp'), creds);
    try {
      expect(c.ok, c.proc.output().slice(-2000)).toBe(true);
      log.push(`openvpn tcp connected in ${c.ms} ms`);
      expect(
        await until(
          'page through the TCP tunnel',
          async () => (await fetchInClient(`http://${WEB_IP}:${PAGE_PORT}/`))?.includes(NONCE),
          10_000,
          200,
        ),
      ).toBe(true);
    } finally {
      await c.proc.stop();
    }
  });

  it('refuses wrong credentials and the account password', async () => {
    const ovpn = await download('udp');
    for (const bad of [
      { ...creds, password: `${creds.password}x` },
      { ...creds, password: 'correct horse battery' },
      { username: 'wnosuchuser1', password: creds.password },
    ]) {
      const c = await connect(ovpn, bad);
      await c.proc.stop();
      expect(c.ok).toBe(false);
      expect(c.proc.output()).toContain('AUTH_FAILED');
    }
  });
});

describe('SOCKS5 through a real node', () => {
  it('fetches a page with curl --socks5-hostname, and refuses wrong credentials', async () => {
    expect(await curlSocks(creds, 'page.warren.test')).toBe(NONCE);
    expect(await curlSocks({ ...creds, password: 'wrong-password-000000' }, 'page.warren.test')).toMatch(/curl failed/);
    expect(await curlSocks({ username: 'wnosuchuser1', password: creds.password }, 'page.warren.test')).toMatch(
      /curl failed/,
    );
  });

  it('refuses the old password after a reset (revoked), and takes the new one', async () => {
    const old = creds;
    const res = await user.post('/api/setup/services/credentials/reset');
    expect(res.statusCode).toBe(200);
    creds = res.json().data as ServiceCredentials;
    const since = Date.now();
    await until(
      'old password refused',
      async () => (await curlSocks(old, 'page.warren.test')).includes('curl failed'),
      10_000,
      250,
    );
    log.push(`socks5: old password refused ${Date.now() - since} ms after the reset`);
    expect(await curlSocks(creds, 'page.warren.test')).toBe(NONCE);
  });
});

describe('ad blocker', () => {
  it('with it on, a blocklisted name does not resolve through OpenVPN or SOCKS5; the rest does', async () => {
    await setAdblock(true);
    const c = await connect(await download('udp'), creds);
    try {
      expect(c.ok, c.proc.output().slice(-2000)).toBe(true);
      expect(c.pushedDns).toBe(DNS_FILTER);
      expect(await resolveInClient(DNS_FILTER, 'ads.warren.test')).toBe('ENOTFOUND'); // NXDOMAIN
      expect(await resolveInClient(DNS_FILTER, 'sub.tracker.warren.test')).toBe('ENOTFOUND');
      expect(await resolveInClient(DNS_FILTER, 'page.warren.test')).toBe(WEB_IP);
    } finally {
      await c.proc.stop();
    }
    expect(await curlSocks(creds, 'ads.warren.test')).toMatch(/curl failed/);
    expect(await curlSocks(creds, 'page.warren.test')).toBe(NONCE);
  });

  it('with it off again, the next connection resolves the name normally', async () => {
    await setAdblock(false);
    const c = await connect(await download('udp'), creds);
    try {
      expect(c.pushedDns).toBe(DNS_PLAIN);
      expect(await resolveInClient(c.pushedDns!, 'ads.warren.test')).toBe(WEB_IP);
    } finally {
      await c.proc.stop();
    }
    expect(await curlSocks(creds, 'ads.warren.test')).toBe(NONCE);
  });

  it("with categories chosen (issue 23), OpenVPN gets that choice's resolver and SOCKS5 resolves by it", async () => {
    const chose = await user.post(AD_BLOCK_PATHS.categories, { categories: ['malware', 'gambling'] });
    expect(chose.statusCode, chose.body).toBe(200);
    await setAdblock(true);
    // malware (bit 4) + gambling (bit 16) = 20: the category resolver .20 of WARREN_DNS_CATEGORIES.
    await until('the choice on the node', async () => nodeEntry(creds.username)?.dns === '10.255.54.20', 10_000);
    const c = await connect(await download('udp'), creds);
    try {
      expect(c.ok, c.proc.output().slice(-2000)).toBe(true);
      expect(c.pushedDns).toBe('10.255.54.20');
      expect(await resolveInClient(c.pushedDns!, 'malware.check.warren.test')).toBe('ENOTFOUND');
      expect(await resolveInClient(c.pushedDns!, 'www.gambling.check.warren.test')).toBe('ENOTFOUND');
      expect(await resolveInClient(c.pushedDns!, 'ads.check.warren.test')).toBe(WEB_IP);
      expect(await resolveInClient(c.pushedDns!, 'ads.warren.test')).toBe(WEB_IP);
    } finally {
      await c.proc.stop();
    }
    expect(await curlSocks(creds, 'malware.check.warren.test')).toMatch(/curl failed/);
    expect(await curlSocks(creds, 'ads.warren.test')).toBe(NONCE);
    // Back to the switch's classic meaning for the tests after this one.
    expect((await user.post(AD_BLOCK_PATHS.categories, { categories: ['ads', 'trackers'] })).statusCode).toBe(200);
    await until('ads + trackers on the node', async () => nodeEntry(creds.username)?.dns === DNS_FILTER, 10_000);
    await setAdblock(false);
  });
});

describe('subscription', () => {
  it('a lapsed subscription is refused by OpenVPN and SOCKS5', async () => {
    await t.app.db.query(
      `update users set subscription_expires_at = now() - interval '1 second' where id = (select user_id from service_credentials where username = $1)`,
      [creds.username],
    );
    const since = Date.now();
    await until('service user removed from the node', async () => nodeEntry(creds.username) === undefined, 10_000);
    log.push(`lapsed → removed from the node after ${Date.now() - since} ms`);
    expect(await curlSocks(creds, 'page.warren.test')).toMatch(/curl failed/);
    const c = await connect(await download('udp').catch(() => path.join(tmp, 'client-udp.ovpn')), creds);
    await c.proc.stop();
    expect(c.ok).toBe(false);
    expect(c.proc.output()).toContain('AUTH_FAILED');
  });

  it('a client refused while the plan had lapsed reconnects by itself once it is renewed (auth-retry in the file)', async () => {
    // The plan lapsed in the test above (the TCP file was downloaded while it was paid). The client
    // runs with the file's own settings (no --auth-retry override).
    const auth = path.join(tmp, 'auth-retry.txt');
    fs.writeFileSync(auth, `${creds.username}\n${creds.password}\n`, { mode: 0o600 });
    const proc = await background(
      'ip',
      [
        'netns',
        'exec',
        NS_CLI,
        'openvpn',
        '--config',
        path.join(tmp, 'client-tcp.ovpn'),
        '--auth-user-pass',
        auth,
        '--verb',
        '3',
      ],
      /AUTH_FAILED/,
      30_000,
    );
    try {
      await t.app.db.query(
        `update users set subscription_expires_at = now() + interval '30 days' where id = (select user_id from service_credentials where username = $1)`,
        [creds.username],
      );
      const since = Date.now();
      await until(
        'the refused client connected after the renewal',
        async () => proc.output().includes('Initialization Sequence Completed'),
        45_000,
      );
      log.push(`renewed → the refused TCP client reconnected by itself after ${Date.now() - since} ms`);
      expect(proc.child?.exitCode ?? null).toBeNull();
    } finally {
      await proc.stop();
    }
  });
});
