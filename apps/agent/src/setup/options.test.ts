import { describe, expect, it } from 'vitest';
import { canonicalIp, parsePool } from './net.js';
import { DEFAULT_IPV4_POOL, DEFAULT_IPV6_POOL, SetupOptionsError, parseSetupArgs } from './options.js';

describe('setup options', () => {
  it('defaults match what the API hands out: the pools, their first addresses as gateways, /etc/warren, wg0, port 51820, all services', () => {
    const o = parseSetupArgs(['--api', 'https://api.example.com']);
    if (o === 'help') throw new Error('help');
    expect(o).toMatchObject({
      iface: 'wg0',
      port: 51820,
      wgExtraPorts: [53, 443],
      etcDir: '/etc/warren',
      tokenFile: '/etc/warren/node-token',
      stateDir: '/var/lib/warren-agent',
      systemdDir: '/etc/systemd/system',
      sysctlDir: '/etc/sysctl.d',
      blocklist: '/etc/warren/blocklist.txt',
      blocklistDir: '/etc/warren/blocklists',
      services: { openvpn: true, socks: true, dns: true },
      wireguard: 'auto',
      start: true,
      dryRun: false,
      v4: { cidr: DEFAULT_IPV4_POOL, prefix: 10, gateway: '10.64.0.1' },
      v6: { cidr: DEFAULT_IPV6_POOL, prefix: 48, gateway: 'fd77:6172:7265::1' },
    });
  });

  it('the token file follows --etc-dir unless given; --services none is WireGuard alone', () => {
    const o = parseSetupArgs([
      '--api-socket',
      '/run/warren.sock',
      '--etc-dir',
      '/tmp/x',
      '--services',
      'none',
      '--no-start',
      '--dry-run',
    ]);
    expect(o).toMatchObject({
      tokenFile: '/tmp/x/node-token',
      blocklist: '/tmp/x/blocklist.txt',
      blocklistDir: '/tmp/x/blocklists',
      services: { openvpn: false, socks: false, dns: false },
      start: false,
      dryRun: true,
    });
    expect(parseSetupArgs(['--api-socket', '/s', '--token-file', 'rel/token'])).toMatchObject({
      tokenFile: expect.stringMatching(/^\/.*rel\/token$/),
    });
    expect(parseSetupArgs(['--api-socket', '/s', '--blocklist-dir', '/srv/dns-lists/'])).toMatchObject({
      blocklistDir: '/srv/dns-lists',
    });
  });

  it('refuses a token on the command line, unknown flags, and bad values, naming each problem', () => {
    expect(() => parseSetupArgs(['--api', 'https://a', '--token', 'secret'])).toThrow(/--token is not an option/);
    expect(() => parseSetupArgs(['--api', 'https://a', '--token=secret'])).toThrow(SetupOptionsError);
    expect(() => parseSetupArgs(['--api', 'https://a', '--bogus'])).toThrow(SetupOptionsError);
    let message = '';
    try {
      parseSetupArgs([
        '--port',
        '70000',
        '--interface',
        'this-name-is-too-long',
        '--ipv4-pool',
        '10.0.0.0/31',
        '--services',
        'dns,ftp',
        '--dns-upstream',
        'resolver',
        '--wireguard',
        'bsd',
      ]);
    } catch (err) {
      message = (err as Error).message;
    }
    for (const m of [
      '--api URL or --api-socket',
      '--port',
      '--interface',
      'IPv4 pool',
      'unknown ftp',
      'resolver is not',
      '--wireguard',
    ])
      expect(message).toContain(m);
    expect(parseSetupArgs(['--help'])).toBe('help');
    // Paths end up in systemd units and agent.env: a space, a % or a newline would be written wrong.
    for (const bad of [
      ['--etc-dir', '/srv/my etc'],
      ['--state-dir', '/var/lib/%n'],
      ['--api-socket', '/run/x.sock\nWARREN_NODE_TOKEN=x'],
      ['--blocklist', '/etc/"q"'],
      ['--blocklist-dir', '/etc/my lists'],
    ]) {
      expect(() => parseSetupArgs(['--api', 'https://a', ...bad]), bad.join(' ')).toThrow(/not a plain path/);
    }
  });
});

describe('pools', () => {
  it('takes the network of any address in it, and its first host as the gateway', () => {
    expect(parsePool('10.64.9.9/10', 4)).toEqual({ cidr: '10.64.0.0/10', prefix: 10, gateway: '10.64.0.1' });
    expect(parsePool('fd77:6172:7265:0:0:0:0:5/48', 6)).toEqual({
      cidr: 'fd77:6172:7265::/48',
      prefix: 48,
      gateway: 'fd77:6172:7265::1',
    });
    expect(parsePool('2001:db8:0:1::/64', 6).gateway).toBe('2001:db8:0:1::1');
    expect(() => parsePool('::ffff:10.0.0.1/96', 6)).toThrow();
    expect(() => parsePool('fd00::/8', 6)).toThrow();
  });

  it('writes IPv6 addresses as ip prints them (RFC 5952)', () => {
    expect(canonicalIp('FD77:6172:7265:0000:0000:0000:0000:0001')).toBe('fd77:6172:7265::1');
    expect(canonicalIp('2001:db8:0:1:0:0:1:1')).toBe('2001:db8:0:1::1:1');
    expect(canonicalIp('1:0:1:0:1:0:1:0')).toBe('1:0:1:0:1:0:1:0');
    expect(canonicalIp('10.64.0.1')).toBe('10.64.0.1');
  });

  it('--wg-extra-ports: a list (sorted), or none; a bad, repeated or listen port is refused with what is wrong', () => {
    const o = (...a: string[]) => parseSetupArgs(['--api', 'https://a', ...a]);
    expect(o('--wg-extra-ports', '443, 53,1194')).toMatchObject({ wgExtraPorts: [53, 443, 1194] });
    expect(o('--wg-extra-ports', 'none')).toMatchObject({ wgExtraPorts: [] });
    expect(() => o('--wg-extra-ports', '53,0')).toThrow(/--wg-extra-ports: "0" is not a port in 1\.\.65535/);
    expect(() => o('--wg-extra-ports', '53,x')).toThrow(/"x" is not a port/);
    expect(() => o('--wg-extra-ports', '')).toThrow(/"" is not a port/);
    expect(() => o('--wg-extra-ports', '70000')).toThrow(/not a port/);
    expect(() => o('--wg-extra-ports', '443,443')).toThrow(/443 is listed twice/);
    expect(() => o('--port', '443')).toThrow(/443 is the WireGuard listen port/);
    expect(o('--port', '443', '--wg-extra-ports', '53')).toMatchObject({ port: 443, wgExtraPorts: [53] });
    expect(() => o('--wg-extra-ports', '1,2,3,4,5,6,7,8,9')).toThrow(/at most 8 ports/);
  });
});
