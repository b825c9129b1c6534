import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SetupSystem, runSetup, takeLock } from './main.js';
import type { Action, Observed } from './plan.js';

const AGENT = ['/usr/bin/node', '/opt/warren-agent/bin/warren-agent.mjs'];
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-setup-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A machine in memory: what it has, and the actions setup ran on it. */
function fakeSystem(over: Partial<Observed> = {}, privileged = true) {
  const ran: Action[] = [];
  const system: SetupSystem = {
    privileged: () => privileged,
    observeTools: () => ({
      tools: {
        ip: '/usr/sbin/ip',
        wg: '/usr/bin/wg',
        nft: '/usr/sbin/nft',
        'wireguard-go': '/usr/bin/wireguard-go',
        dnsmasq: '/usr/sbin/dnsmasq',
      },
      kernelWireguard: false,
      systemd: false,
      ...over,
    }),
    observe: async (_o, base) => ({ ...base, files: {}, sysctl: {}, units: {}, blocklistExists: false, ...over }),
    runAction: async (a) => void ran.push(a),
  };
  return { system, ran };
}

async function setup(argv: string[], system: SetupSystem) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runSetup(
    ['--api', 'https://api.example.com', '--etc-dir', dir, ...argv],
    AGENT,
    (l) => out.push(l),
    (l) => err.push(l),
    system,
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('warren-agent setup', () => {
  it('without root or CAP_NET_ADMIN: says so and exits 77, changing nothing', async () => {
    const { system, ran } = fakeSystem({}, false);
    const r = await setup([], system);
    expect(r).toMatchObject({ code: 77, err: expect.stringContaining('needs root (or CAP_NET_ADMIN)') });
    expect(ran).toEqual([]);
  });

  it('with tools missing: names them and the apt-get line, exits 69, changing nothing', async () => {
    const { system, ran } = fakeSystem({ tools: { ip: '/usr/sbin/ip' } });
    const r = await setup(['--services', 'openvpn'], system);
    expect(r.code).toBe(69);
    expect(r.err).toContain('Missing tools: wg, nft, wireguard-go, openvpn (no WireGuard kernel module here)');
    expect(r.err).toContain('apt-get install -y wireguard-tools nftables wireguard-go openvpn');
    expect(ran).toEqual([]);
  });

  it('stealth asked for without the core: exits 69 with the apt-get line for v2ray; with it, says how to start the core before the agent', async () => {
    const { system, ran } = fakeSystem();
    const stealth = [
      '--services',
      'dns',
      '--stealth-host',
      'node.example.com',
      '--stealth-cert',
      '/c.pem',
      '--stealth-key',
      '/k.pem',
    ];
    const r = await setup(stealth, system);
    expect(r.code).toBe(69);
    expect(r.err).toContain('Missing tools: v2ray');
    expect(r.err).toContain('apt-get install -y v2ray');
    expect(ran).toEqual([]);
    const testdata = (f: string) => fs.readFileSync(new URL(`../stealth/testdata/${f}`, import.meta.url), 'utf8');
    const tools = {
      ip: '/usr/sbin/ip',
      wg: '/usr/bin/wg',
      nft: '/usr/sbin/nft',
      'wireguard-go': '/usr/bin/wireguard-go',
      dnsmasq: '/usr/sbin/dnsmasq',
      v2ray: '/usr/bin/v2ray',
    };
    const ok = fakeSystem({
      tools,
      stealth: {
        certPem: testdata('cert.pem'),
        keyPem: testdata('key.pem'),
        newWsPath: '/p',
        now: Date.parse('2030-01-01'),
      },
    });
    const done = await setup(stealth, ok.system);
    expect(done.code).toBe(0);
    expect(done.out).toMatch(
      new RegExp(
        `start the stealth core with:\\n  /usr/bin/v2ray -config ${dir}/stealth-core.json\\n.*start the agent with:`,
        's',
      ),
    );
  });

  it('--dry-run prints the plan and runs nothing; a real run runs it and says how to start the agent', async () => {
    const dry = fakeSystem();
    const r = await setup(['--services', 'dns', '--dry-run'], dry.system);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^interface\s+would change: create wg0 \(wireguard-go\)$/m);
    expect(r.out).toContain('nothing was changed');
    expect(dry.ran).toEqual([]);
    const real = fakeSystem();
    const done = await setup(['--services', 'dns'], real.system);
    expect(done.out).toMatch(/^interface\s+changed: create wg0/m);
    expect(done.out).toContain(`start the agent with:\n  ${AGENT.join(' ')} run --env-file ${dir}/agent.env`);
    expect(real.ran.some((a) => a.kind === 'genkey')).toBe(true);
    expect(fs.existsSync(path.join(dir, '.setup.lock'))).toBe(false); // released
  });

  it('an interface of that name that is not WireGuard is left alone: exit 1 before any change', async () => {
    const { system, ran } = fakeSystem({ link: { kind: 'veth', up: true, addresses: ['192.0.2.1/24'] } });
    const r = await setup(['--services', 'dns'], system);
    expect(r).toMatchObject({
      code: 1,
      err: expect.stringContaining('wg0 exists and is not a WireGuard interface (veth)'),
    });
    expect(ran).toEqual([]);
  });

  it('WireGuard alone: says that the DNS its configs name needs WG_DNS on the API', async () => {
    const r = await setup(['--services', 'none'], fakeSystem().system);
    expect(r.out).toMatch(
      /^resolver\s+to do: WireGuard configs name 10\.64\.0\.1 and fd77:6172:7265::1 as DNS .*WG_DNS/m,
    );
  });

  it('usage errors and --help', async () => {
    expect((await setup(['--port', 'x'], fakeSystem().system)).code).toBe(64);
    const help = await runSetup(
      ['--help'],
      AGENT,
      () => undefined,
      () => undefined,
      fakeSystem().system,
    );
    expect(help).toBe(0);
  });

  it('a second setup while one runs exits 75; a lock left by a crashed one is taken over', async () => {
    const lockFile = path.join(dir, '.setup.lock');
    fs.writeFileSync(lockFile, String(process.pid)); // "another setup": this live process
    const r = await setup(['--services', 'dns'], fakeSystem().system);
    expect(r).toMatchObject({ code: 75, err: expect.stringContaining(`pid ${process.pid}`) });
    fs.writeFileSync(lockFile, '2147483646'); // no such process
    const release = takeLock(lockFile);
    expect(typeof release).toBe('function');
    expect(fs.readFileSync(lockFile, 'utf8')).toBe(String(process.pid));
    (release as () => void)();
    expect(fs.existsSync(lockFile)).toBe(false);
  });
});
