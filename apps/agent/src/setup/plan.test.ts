import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type SetupOptions, parseSetupArgs } from './options.js';
import {
  type Observed,
  PlanError,
  aptLine,
  missingTools,
  plan,
  startCommand,
  stealthStartCommand,
  wireguardKind,
} from './plan.js';
import {
  pathsOf,
  renderAgentEnv,
  renderAgentUnit,
  renderInterfaceUnit,
  renderNft,
  renderNftUnit,
  renderSysctl,
  unitNames,
} from './render.js';

const opts = (...argv: string[]) =>
  parseSetupArgs(['--api', 'https://api.example.com', '--services', 'dns', ...argv]) as SetupOptions;
const TOOLS = {
  ip: '/usr/sbin/ip',
  wg: '/usr/bin/wg',
  nft: '/usr/sbin/nft',
  'wireguard-go': '/usr/bin/wireguard-go',
  dnsmasq: '/usr/sbin/dnsmasq',
};
const AGENT = ['/usr/bin/node', '/opt/warren-agent/bin/warren-agent.mjs'];
const PUB = 'x'.repeat(43) + '=';

const fresh = (): Observed => ({
  tools: TOOLS,
  kernelWireguard: false,
  systemd: false,
  files: {},
  sysctl: { 'net.ipv4.ip_forward': '0', 'net.ipv6.conf.all.forwarding': '0' },
  units: {},
  blocklistExists: false,
});

/** The machine as a finished setup with these options leaves it. */
function converged(o: SetupOptions, over: Partial<Observed> = {}): Observed {
  const p = pathsOf(o);
  const tools = { ip: TOOLS.ip, wg: TOOLS.wg, nft: TOOLS.nft, wireguardGo: TOOLS['wireguard-go'] };
  return {
    ...fresh(),
    link: {
      kind: 'tun',
      up: true,
      addresses: [`${o.v4.gateway}/${o.v4.prefix}`, `${o.v6.gateway}/${o.v6.prefix}`, 'fe80::1234/64'],
    },
    wg: { listenPort: o.port, publicKey: PUB },
    key: { publicKey: PUB, mode: 0o600 },
    token: { mode: 0o600 },
    files: {
      [p.envFile]: renderAgentEnv(o),
      [p.nftFile]: renderNft(o),
      [p.sysctlFile]: renderSysctl(),
      [p.nftListing]: 'table inet warren {}\n',
      [p.ifaceUnit]: renderInterfaceUnit(o, tools, 'wireguard-go'),
      [p.nftUnit]: renderNftUnit(o, tools),
      [p.agentUnit]: renderAgentUnit(o, AGENT),
    },
    sysctl: { 'net.ipv4.ip_forward': '1', 'net.ipv6.conf.all.forwarding': '1' },
    nftTable: 'table inet warren {}\n',
    blocklistExists: true,
    blocklistDirExists: true,
    ...over,
  };
}
const changed = (steps: ReturnType<typeof plan>) => steps.filter((s) => s.status === 'change').map((s) => s.name);
const execs = (steps: ReturnType<typeof plan>) =>
  steps.flatMap((s) => s.actions).flatMap((a) => (a.kind === 'exec' ? [a.argv.join(' ')] : []));

describe('setup plan', () => {
  it('on a fresh machine: a key, the interface (wireguard-go without the module), its port and gateways, forwarding, NAT, settings and units', () => {
    const o = opts();
    const steps = plan(o, fresh(), AGENT);
    expect(changed(steps)).toEqual([
      'private key',
      'unit warren-wg0.service',
      'unit warren-nft.service',
      'unit warren-agent.service',
      'interface',
      'key and port',
      'gateway addresses',
      'link up',
      'forwarding',
      'nat (nftables table inet warren)',
      'agent settings',
      'blocklist',
      'category lists',
    ]);
    expect(steps.find((s) => s.name === 'node token')).toMatchObject({
      status: 'todo',
      detail: expect.stringContaining('/etc/warren/node-token'),
    });
    expect(execs(steps)).toEqual([
      '/usr/bin/wireguard-go wg0',
      '/usr/bin/wg set wg0 private-key /etc/warren/wg0.key listen-port 51820',
      '/usr/sbin/ip address replace 10.64.0.1/10 dev wg0',
      '/usr/sbin/ip -6 address replace fd77:6172:7265::1/48 dev wg0 nodad',
      '/usr/sbin/ip link set wg0 up',
      '/usr/sbin/nft -f /etc/warren/warren.nft',
    ]);
    const actions = steps.flatMap((s) => s.actions);
    expect(actions).toContainEqual({ kind: 'genkey', path: '/etc/warren/wg0.key' });
    expect(actions).toContainEqual({ kind: 'sysctl', key: 'net.ipv6.conf.all.forwarding', value: '1' });
    expect(actions.filter((a) => a.kind === 'write').map((a) => a.kind === 'write' && [a.path, a.mode])).toContainEqual(
      ['/etc/warren/agent.env', 0o600],
    );
    // Without systemd, nothing is enabled or started.
    expect(execs(steps).some((c) => c.startsWith('systemctl'))).toBe(false);
  });

  it('uses the kernel module when it is there (or when told), wireguard-go otherwise', () => {
    expect(execs(plan(opts(), { ...fresh(), kernelWireguard: true }, AGENT))[0]).toBe(
      '/usr/sbin/ip link add wg0 type wireguard',
    );
    expect(wireguardKind(opts('--wireguard', 'wireguard-go'), { kernelWireguard: true })).toBe('wireguard-go');
    expect(wireguardKind(opts('--wireguard', 'kernel'), { kernelWireguard: false })).toBe('kernel');
  });

  it('a second run finds nothing to change', () => {
    const o = opts();
    const steps = plan(o, converged(o), AGENT);
    expect(changed(steps)).toEqual([]);
    expect(steps.every((s) => s.actions.length === 0)).toBe(true);
  });

  it('a new port changes the interface and its unit, and the redirect of the extra ports to it; nothing else', () => {
    const before = opts();
    const steps = plan(opts('--port', '51000'), converged(before), AGENT);
    expect(changed(steps)).toEqual(['unit warren-wg0.service', 'key and port', 'nat (nftables table inet warren)']);
    expect(execs(steps)).toEqual([
      '/usr/bin/wg set wg0 private-key /etc/warren/wg0.key listen-port 51000',
      '/usr/sbin/nft -f /etc/warren/warren.nft',
    ]);
    expect(steps.find((s) => s.name.startsWith('nat'))!.detail).toContain(
      'WireGuard also on UDP 53, 443 (redirected to 51000)',
    );
    // Without extra ports the port is the interface's alone.
    const bare = opts('--wg-extra-ports', 'none');
    const only = plan(opts('--wg-extra-ports', 'none', '--port', '51000'), converged(bare), AGENT);
    expect(changed(only)).toEqual(['unit warren-wg0.service', 'key and port']);
  });

  it('--wg-extra-ports is shown in the plan; a second run with the same list changes nothing, another list only the table', () => {
    const o = opts('--wg-extra-ports', '443');
    const same = plan(o, converged(o), AGENT);
    expect(same.every((s) => s.actions.length === 0)).toBe(true);
    expect(same.find((s) => s.name.startsWith('nat'))!.detail).toContain(
      'WireGuard also on UDP 443 (redirected to 51820)',
    );
    const other = plan(opts('--wg-extra-ports', '53,443'), converged(o), AGENT);
    expect(changed(other)).toEqual(
      ['nat (nftables table inet warren)', 'agent settings', 'services'].filter((n) => other.some((s) => s.name === n)),
    );
  });

  it('--blocklist-dir is shown in the plan: created when missing, nothing on a second run, another one moves the settings', () => {
    const o = opts('--blocklist-dir', '/srv/dns-lists');
    const first = plan(o, { ...converged(o), blocklistDirExists: false }, AGENT);
    expect(changed(first)).toEqual(['category lists']);
    expect(first.find((s) => s.name === 'category lists')).toMatchObject({
      detail: expect.stringContaining('create /srv/dns-lists'),
      actions: [{ kind: 'mkdir', path: '/srv/dns-lists', mode: 0o755 }],
    });
    const again = plan(o, converged(o), AGENT);
    expect(again.every((s) => s.actions.length === 0)).toBe(true);
    expect(again.find((s) => s.name === 'category lists')!.detail).toMatch(/^\/srv\/dns-lists \(ads, trackers/);
    // Another directory: the agent's settings name it (and it is made).
    const moved = plan(opts('--blocklist-dir', '/srv/other'), { ...converged(o), blocklistDirExists: false }, AGENT);
    expect(changed(moved)).toEqual(
      ['agent settings', 'category lists', 'services'].filter((n) => moved.some((s) => s.name === n)),
    );
    // Without the resolver there are no lists to keep.
    expect(plan(opts('--services', 'none'), fresh(), AGENT).some((s) => s.name === 'category lists')).toBe(false);
  });

  it('another pool moves the gateways (the old ones go), the NAT rules and the resolver addresses', () => {
    const steps = plan(opts('--ipv4-pool', '100.64.0.0/16'), converged(opts()), AGENT);
    expect(changed(steps)).toEqual([
      'unit warren-wg0.service',
      'gateway addresses',
      'nat (nftables table inet warren)',
      'agent settings',
    ]);
    expect(execs(steps)).toEqual([
      '/usr/sbin/ip address del 10.64.0.1/10 dev wg0',
      '/usr/sbin/ip address replace 100.64.0.1/16 dev wg0',
      '/usr/sbin/nft -f /etc/warren/warren.nft',
    ]);
  });

  it('repairs drift: a table changed by hand is reloaded from the same file; a key file others can read is chmodded; a foreign key on the interface is replaced', () => {
    const o = opts();
    const steps = plan(
      o,
      converged(o, {
        nftTable: 'table inet warren { chain x {} }\n',
        key: { publicKey: PUB, mode: 0o644 },
        wg: { listenPort: 51820, publicKey: 'y'.repeat(43) + '=' },
      }),
      AGENT,
    );
    expect(changed(steps)).toEqual(['private key', 'key and port', 'nat (nftables table inet warren)']);
    const nat = steps.find((s) => s.name.startsWith('nat'))!;
    expect(nat.actions.map((a) => a.kind)).toEqual(['exec', 'snapshotNft']); // the file is unchanged: not rewritten
    expect(steps.find((s) => s.name === 'private key')!.actions).toEqual([
      { kind: 'chmod', path: '/etc/warren/wg0.key', mode: 0o600 },
    ]);
    // The key file is never regenerated once it exists.
    expect(steps.flatMap((s) => s.actions).some((a) => a.kind === 'genkey')).toBe(false);
  });

  it("never replaces the node's key unasked (issue 22): a missing key file on a node with a key, or a new --interface, is refused with what to do", () => {
    const o = opts();
    const other = 'z'.repeat(43) + '=';
    // The interface still carries the key customers' configs name.
    expect(() => plan(o, converged(o, { key: undefined }), AGENT)).toThrow(PlanError);
    expect(() => plan(o, converged(o, { key: undefined }), AGENT)).toThrow(
      /wg0\.key is missing, but wg0 carries the key x{43}= .*wg show wg0 private-key > \/etc\/warren\/wg0\.key.*--new-key/,
    );
    // An earlier setup made wg0: --interface wg1 would make a second, new key.
    const wg1 = opts('--interface', 'wg1');
    const beside = { ...fresh(), otherKeys: [{ iface: 'wg0', path: '/etc/warren/wg0.key', publicKey: other }] };
    expect(() => plan(wg1, beside, AGENT)).toThrow(
      /this node's WireGuard key is \/etc\/warren\/wg0\.key \(interface wg0.*--interface wg0.*install -m 600 \/etc\/warren\/wg0\.key \/etc\/warren\/wg1\.key.*--new-key/,
    );
    // The machine was rebuilt (no interface, no key file), but this node reported a key to the API.
    const reported = { ...fresh(), reportedKey: { publicKey: other, path: '/var/lib/warren-agent/wg-public-key' } };
    expect(() => plan(o, reported, AGENT)).toThrow(
      /reported the public key z{43}= to the API .*Restore \/etc\/warren\/wg0\.key from a backup/,
    );
    // Nothing refused when there is no key anywhere (a new node), or it is all there.
    expect(changed(plan(o, fresh(), AGENT))).toContain('private key');
    expect(changed(plan(o, converged(o), AGENT))).toEqual([]);
  });

  it('--new-key makes a new key when asked (the old file kept), gives it to the interface, and says what it costs', () => {
    const o = opts('--new-key');
    expect(o.newKey).toBe(true);
    const steps = plan(o, converged(o), AGENT);
    expect(changed(steps)).toEqual(['private key', 'key and port']);
    const key = steps.find((s) => s.name === 'private key')!;
    expect(key.actions).toContainEqual({ kind: 'genkey', path: '/etc/warren/wg0.key', replace: true });
    expect(key.detail).toMatch(
      /every customer's config for this node must be downloaded again; the agent reports the new public key to the API/,
    );
    expect(execs(steps)).toEqual(['/usr/bin/wg set wg0 private-key /etc/warren/wg0.key listen-port 51820']);
    // Also where setup would otherwise refuse.
    expect(
      plan(o, converged(o, { key: undefined }), AGENT).find((s) => s.name === 'private key')!.actions,
    ).toContainEqual({ kind: 'genkey', path: '/etc/warren/wg0.key', replace: false });
    expect(opts().newKey).toBe(false);
  });

  it('with systemd: units enabled and started once; a settings change restarts the agent; converged is nothing', () => {
    const o = opts();
    const u = unitNames(o);
    const first = plan(o, converged(o, { systemd: true }), AGENT);
    expect(execs(first)).toEqual([
      `systemctl enable ${u.iface} ${u.nft} ${u.agent}`,
      `systemctl start ${u.iface}`,
      `systemctl start ${u.nft}`,
      `systemctl start ${u.agent}`,
    ]);
    const running = {
      systemd: true,
      units: Object.fromEntries(Object.values(u).map((n) => [n, { enabled: true, active: true }])),
    };
    expect(changed(plan(o, converged(o, running), AGENT))).toEqual([]);
    const upstream = plan(opts('--dns-upstream', '9.9.9.9'), converged(o, running), AGENT);
    expect(changed(upstream)).toEqual(['agent settings', 'services']);
    expect(execs(upstream)).toEqual([`systemctl restart ${u.agent}`]);
    // A fresh machine under systemd: the interface is made by its unit (wireguard-go lives there), started once.
    const fresh1 = plan(o, { ...fresh(), systemd: true, token: { mode: 0o600 } }, AGENT);
    expect(execs(fresh1).filter((c) => c.startsWith('systemctl'))).toEqual([
      'systemctl daemon-reload',
      `systemctl start ${u.iface}`,
      `systemctl enable ${u.iface} ${u.nft} ${u.agent}`,
      `systemctl start ${u.nft}`,
      `systemctl start ${u.agent}`,
    ]);
    expect(execs(fresh1)).not.toContain('/usr/bin/wireguard-go wg0');
    // The unit is active but its interface was deleted by hand: restarted.
    const gone = plan(o, converged(o, { ...running, link: undefined }), AGENT);
    expect(execs(gone).slice(0, 2)).toEqual(['systemctl daemon-reload', `systemctl restart ${u.iface}`]);
    // --no-start: written, never enabled or started.
    expect(changed(plan(opts('--no-start'), converged(o, { systemd: true }), AGENT))).toEqual([]);
    // No token yet: the agent is not started (it would only fail); the step says what to do.
    const noToken = plan(o, converged(o, { systemd: true, token: undefined }), AGENT);
    expect(execs(noToken)).not.toContain(`systemctl start ${u.agent}`);
  });

  it('names the missing tools and the packages that bring them', () => {
    const o = opts('--services', 'openvpn,dns');
    expect(missingTools(o, { tools: {}, kernelWireguard: false })).toEqual([
      'ip',
      'wg',
      'nft',
      'wireguard-go',
      'openvpn',
      'dnsmasq',
    ]);
    expect(missingTools(o, { tools: { ip: '/x', wg: '/x', nft: '/x' }, kernelWireguard: true })).toEqual([
      'openvpn',
      'dnsmasq',
    ]);
    expect(missingTools(opts('--services', 'none'), { tools: TOOLS, kernelWireguard: false })).toEqual([]);
    expect(aptLine(['ip', 'nft', 'wireguard-go', 'dnsmasq'])).toBe(
      'apt-get install -y iproute2 nftables wireguard-go dnsmasq-base',
    );
  });

  it('says how to start the agent by hand, quoting what needs it', () => {
    expect(startCommand(opts('--etc-dir', '/srv/etc'), ['/usr/bin/node', "/opt/it's here/warren-agent.mjs"])).toBe(
      "/usr/bin/node '/opt/it'\\''s here/warren-agent.mjs' run --env-file /srv/etc/agent.env",
    );
  });
});

describe('setup plan: the stealth core (--stealth-host)', () => {
  const testdata = (f: string) => fs.readFileSync(new URL(`../stealth/testdata/${f}`, import.meta.url), 'utf8');
  const CERT = testdata('cert.pem');
  const KEY = testdata('key.pem');
  const so = (...argv: string[]) =>
    opts(
      '--stealth-host',
      'node.example.com',
      '--stealth-cert',
      '/etc/ssl/node.pem',
      '--stealth-key',
      '/etc/ssl/node.key',
      ...argv,
    );
  const V2RAY = { ...TOOLS, v2ray: '/usr/bin/v2ray' };
  const stealthObs = (over: Partial<NonNullable<Observed['stealth']>> = {}): Observed['stealth'] => ({
    certPem: CERT,
    keyPem: KEY,
    newWsPath: '/fresh-path',
    now: Date.parse('2030-01-01'),
    ...over,
  });

  it('needs v2ray: the apt-get line names it', () => {
    expect(missingTools(so(), { tools: TOOLS, kernelWireguard: false })).toEqual(['v2ray']);
    expect(aptLine(['v2ray'])).toBe('apt-get install -y v2ray');
    expect(missingTools(opts(), { tools: TOOLS, kernelWireguard: false })).toEqual([]);
  });

  it('on a fresh machine: the WebSocket path (kept afterwards), the core config (mode 600, key inline), its hardened unit, and the agent told', () => {
    const o = so();
    const steps = plan(o, { ...fresh(), tools: V2RAY, stealth: stealthObs() }, AGENT);
    expect(changed(steps)).toEqual(
      expect.arrayContaining(['unit warren-stealth.service', 'stealth path', 'stealth core config', 'agent settings']),
    );
    const writes = steps.flatMap((s) => s.actions).flatMap((a) => (a.kind === 'write' ? [a] : []));
    expect(writes.find((w) => w.path === '/etc/warren/stealth-ws-path')).toMatchObject({
      content: '/fresh-path\n',
      mode: 0o600,
    });
    const config = writes.find((w) => w.path === '/etc/warren/stealth-core.json')!;
    expect(config.mode).toBe(0o600);
    const parsed = JSON.parse(config.content) as {
      inbounds: { tag: string; port: number; settings: { fallbacks?: unknown[] } }[];
    };
    expect(parsed.inbounds.find((i) => i.tag === 'trojan')).toMatchObject({
      port: 443,
      settings: { fallbacks: [{ path: '/fresh-path', dest: 10086 }, { dest: 10080 }] },
    });
    expect(config.content).toContain(KEY.trim().split('\n')[1]);
    const env = writes.find((w) => w.path === '/etc/warren/agent.env')!.content;
    for (const line of [
      'WARREN_STEALTH_HOST=node.example.com',
      'WARREN_STEALTH_PORT=443',
      'WARREN_STEALTH_WS_PATH=/fresh-path',
      'WARREN_STEALTH_CERT=/etc/ssl/node.pem',
      'WARREN_STEALTH_HTTP=0.0.0.0:80',
    ])
      expect(env).toContain(`${line}\n`);
    const unit = writes.find((w) => w.path === '/etc/systemd/system/warren-stealth.service')!.content;
    for (const l of [
      'LoadCredential=core.json:/etc/warren/stealth-core.json',
      'ExecStart=/usr/bin/v2ray -config %d/core.json',
      'DynamicUser=yes',
      'CapabilityBoundingSet=CAP_NET_BIND_SERVICE',
      'AmbientCapabilities=CAP_NET_BIND_SERVICE',
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'PrivateDevices=yes',
      'SystemCallFilter=@system-service',
    ])
      expect(unit).toContain(`${l}\n`);
    expect(writes.find((w) => w.path === '/etc/systemd/system/warren-agent.service')!.content).toMatch(
      /^Wants=warren-stealth\.service$/m,
    );
    expect(stealthStartCommand(o, '/usr/bin/v2ray')).toBe('/usr/bin/v2ray -config /etc/warren/stealth-core.json');
    // How the agent ends open connections of ended customers: it writes a file, systemd restarts the core.
    expect(env).toContain('WARREN_STEALTH_RESTART_FILE=/var/lib/warren-agent/stealth-restart\n');
    const pathUnit = writes.find((w) => w.path === '/etc/systemd/system/warren-stealth-restart.path')!.content;
    for (const l of [
      'PathChanged=/var/lib/warren-agent/stealth-restart',
      'Unit=warren-stealth-restart.service',
      'WantedBy=multi-user.target',
    ])
      expect(pathUnit).toContain(`${l}\n`);
    expect(writes.find((w) => w.path === '/etc/systemd/system/warren-stealth-restart.service')!.content).toContain(
      'Type=oneshot\nExecStart=systemctl restart warren-stealth.service\n',
    );
  });

  it('under systemd: the restart trigger is enabled and started with the core; its oneshot service is neither', () => {
    const o = so();
    const steps = plan(o, { ...fresh(), systemd: true, tools: V2RAY, stealth: stealthObs() }, AGENT);
    const ex = execs(steps);
    expect(ex.find((e) => e.startsWith('systemctl enable'))).toContain('warren-stealth-restart.path');
    expect(ex.find((e) => e.startsWith('systemctl enable'))).not.toContain('warren-stealth-restart.service');
    expect(ex).toContain('systemctl start warren-stealth-restart.path');
    expect(ex.indexOf('systemctl start warren-stealth-restart.path')).toBeLessThan(
      ex.indexOf('systemctl start warren-stealth.service'),
    );
  });

  it('a second run changes nothing (the path is kept); a new certificate rewrites the config and, under systemd, restarts the core only', () => {
    const o = so();
    const first = plan(o, { ...fresh(), tools: V2RAY, stealth: stealthObs() }, AGENT);
    const files: Record<string, string> = {};
    for (const a of first.flatMap((s) => s.actions)) if (a.kind === 'write') files[a.path] = a.content;
    const u = unitNames(o);
    const running = Object.fromEntries(Object.values(u).map((n) => [n, { enabled: true, active: true }]));
    const done = converged(o, {
      tools: V2RAY,
      systemd: true,
      units: running,
      files: { ...converged(o).files, ...files },
      stealth: stealthObs({ wsPath: '/fresh-path', newWsPath: '/another' }),
    });
    expect(changed(plan(o, done, AGENT))).toEqual([]);
    const renewed = plan(
      o,
      { ...done, stealth: stealthObs({ wsPath: '/fresh-path', certPem: testdata('renewed.pem') }) },
      AGENT,
    );
    expect(changed(renewed)).toEqual(['stealth core config', 'services']);
    expect(execs(renewed)).toEqual([`systemctl restart ${u.stealth}`]);
  });

  it('refuses a certificate the apps would refuse: another name, expired, another key, unreadable', () => {
    const base = { ...fresh(), tools: V2RAY };
    expect(() =>
      plan(
        opts('--stealth-host', 'other.example.com', '--stealth-cert', '/c', '--stealth-key', '/k'),
        { ...base, stealth: stealthObs() },
        AGENT,
      ),
    ).toThrow(/not for other\.example\.com/);
    expect(() => plan(so(), { ...base, stealth: stealthObs({ now: Date.parse('2200-01-01') }) }, AGENT)).toThrow(
      /expired/,
    );
    expect(() => plan(so(), { ...base, stealth: stealthObs({ keyPem: testdata('other-key.pem') }) }, AGENT)).toThrow(
      /not the key of/,
    );
    expect(() => plan(so(), { ...base, stealth: stealthObs({ certPem: undefined }) }, AGENT)).toThrow(/cannot be read/);
    expect(() => plan(so(), { ...base, stealth: stealthObs({ certPem: 'junk' }) }, AGENT)).toThrow(
      /not a PEM certificate/,
    );
  });

  it('options: the stealth flags need a host, a certificate and a key; ports are checked', () => {
    expect(() => opts('--stealth-port', '8443')).toThrow(/need --stealth-host/);
    expect(() => opts('--stealth-host', 'node.example.com')).toThrow(/needs --stealth-cert and --stealth-key/);
    expect(() => so('--stealth-port', '70000')).toThrow(/--stealth-port/);
    expect(() => so('--stealth-port', '8443', '--stealth-http-port', '8443')).toThrow(/must differ/);
    expect(() => opts('--stealth-host', 'localhost', '--stealth-cert', '/c', '--stealth-key', '/k')).toThrow(
      /public host name/,
    );
    expect(so('--stealth-port', '8443', '--stealth-http-port', '0').stealth).toEqual({
      host: 'node.example.com',
      port: 8443,
      cert: '/etc/ssl/node.pem',
      key: '/etc/ssl/node.key',
      httpPort: 0,
    });
  });
});
