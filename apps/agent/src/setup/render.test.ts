import { describe, expect, it } from 'vitest';
import { type SetupOptions, parseSetupArgs } from './options.js';
import {
  renderAgentEnv,
  renderAgentUnit,
  renderInterfaceUnit,
  renderNft,
  renderNftUnit,
  renderSysctl,
} from './render.js';

const opts = (...argv: string[]) => parseSetupArgs(['--api', 'https://api.example.com', ...argv]) as SetupOptions;
const tools = { ip: '/usr/sbin/ip', wg: '/usr/bin/wg', nft: '/usr/sbin/nft', wireguardGo: '/usr/bin/wireguard-go' };

describe('nftables ruleset', () => {
  it('is one table of its own, replaced atomically, that masquerades the pools leaving through other interfaces', () => {
    const text = renderNft(opts('--services', 'dns'));
    // table (create if missing) + delete + declare: one nft -f transaction that touches nothing else.
    expect(text).toMatch(/^table inet warren\ndelete table inet warren\ntable inet warren \{$/m);
    expect(text.match(/^\s*(table|delete|flush)\b.*$/gm)).toEqual([
      'table inet warren',
      'delete table inet warren',
      'table inet warren {',
    ]);
    expect(text).not.toMatch(/flush ruleset/);
    expect(text).toContain('ip saddr 10.64.0.0/10 oifname != "wg0" masquerade');
    expect(text).toContain('ip6 saddr fd77:6172:7265::/48 oifname != "wg0" masquerade');
    expect(text).toContain('iifname { "wg0" } oifname { "wg0" } drop');
    expect(text).not.toContain('wovpn');
  });

  it('with OpenVPN, also its tun devices and pools', () => {
    const text = renderNft(opts('--interface', 'wg1', '--openvpn-udp-net', '10.140.0.0/16'));
    expect(text).toContain(
      'iifname { "wg1", "wovpn-udp", "wovpn-tcp" } oifname { "wg1", "wovpn-udp", "wovpn-tcp" } drop',
    );
    expect(text).toContain(
      'ip saddr { 10.140.0.0/16, 10.131.0.0/16 } oifname != { "wovpn-udp", "wovpn-tcp" } masquerade',
    );
  });

  it('follows another pool', () => {
    expect(renderNft(opts('--ipv4-pool', '100.64.0.0/16', '--ipv6-pool', 'fd00:1::/64'))).toMatch(
      /ip saddr 100\.64\.0\.0\/16 .*\n.*ip6 saddr fd00:1::\/64 /,
    );
  });
});

describe('sysctl and the agent settings', () => {
  it('turns on IPv4 and IPv6 forwarding', () => {
    expect(renderSysctl()).toMatch(/^net\.ipv4\.ip_forward = 1\nnet\.ipv6\.conf\.all\.forwarding = 1\n$/m);
  });

  it('names the token file (never the token), and puts the plain resolver on the gateways configs name as DNS', () => {
    const env = renderAgentEnv(opts('--dns-upstream', '9.9.9.9,1.1.1.1', '--metrics', '9465'));
    expect(env).toContain('WARREN_API_URL=https://api.example.com\n');
    expect(env).toContain('WARREN_NODE_TOKEN_FILE=/etc/warren/node-token\n');
    expect(env).not.toMatch(/^WARREN_NODE_TOKEN=/m);
    expect(env).toContain('WARREN_SERVICES=openvpn,socks,dns\n');
    expect(env).toContain('WARREN_DNS_WG=10.64.0.1,fd77:6172:7265::1\n');
    expect(env).toContain('WARREN_DNS_UPSTREAM=9.9.9.9,1.1.1.1\n');
    expect(env).toContain('WARREN_METRICS_LISTEN=9465\n');
    expect(env).toContain('WARREN_BLOCKLIST_DIR=/etc/warren/blocklists\n');
    expect(renderAgentEnv(opts('--blocklist-dir', '/srv/dns-lists'))).toContain(
      'WARREN_BLOCKLIST_DIR=/srv/dns-lists\n',
    );
    const bare = renderAgentEnv(opts('--services', 'none'));
    expect(bare).not.toMatch(/WARREN_SERVICES|WARREN_DNS|WARREN_OPENVPN|WARREN_BLOCKLIST/);
    // Lines process.loadEnvFile reads as they are: KEY=VALUE or comments.
    for (const line of env.trim().split('\n')) expect(line).toMatch(/^(#.*|[A-Z_]+=\S+)$/);
  });
});

describe('systemd units', () => {
  it('the interface unit creates (kernel or wireguard-go), keys, addresses and raises the interface', () => {
    const o = opts('--port', '51000');
    const go = renderInterfaceUnit(o, tools, 'wireguard-go');
    expect(go).toContain('ExecStart=-/usr/bin/wireguard-go wg0\n');
    expect(go).toContain('ExecStart=/usr/bin/wg set wg0 private-key /etc/warren/wg0.key listen-port 51000\n');
    expect(go).toContain('ExecStart=/usr/sbin/ip address replace 10.64.0.1/10 dev wg0\n');
    expect(go).toContain('ExecStart=/usr/sbin/ip -6 address replace fd77:6172:7265::1/48 dev wg0 nodad\n');
    expect(go).toContain('ExecStart=/usr/sbin/ip link set wg0 up\n');
    expect(renderInterfaceUnit(o, tools, 'kernel')).toContain('ExecStart=-/usr/sbin/ip link add wg0 type wireguard\n');
    expect(renderNftUnit(o, tools)).toContain('ExecStart=/usr/sbin/nft -f /etc/warren/warren.nft\n');
  });

  it('the agent unit reads the settings file, runs the agent, and is hardened', () => {
    const unit = renderAgentUnit(opts(), ['/usr/bin/node', '/opt/warren agent/bin/warren-agent.mjs']);
    expect(unit).toContain('EnvironmentFile=/etc/warren/agent.env\n');
    expect(unit).toContain('ExecStart=/usr/bin/node "/opt/warren agent/bin/warren-agent.mjs" run\n');
    expect(unit).toContain('BindsTo=warren-wg0.service\n');
    for (const line of [
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'ReadWritePaths=/var/lib/warren-agent',
      'ProtectHome=yes',
      'PrivateTmp=yes',
      'DeviceAllow=/dev/net/tun rw',
    ])
      expect(unit).toContain(`${line}\n`);
    expect(/^CapabilityBoundingSet=(.*)$/m.exec(unit)?.[1]?.split(' ')).toEqual([
      'CAP_NET_ADMIN',
      'CAP_NET_BIND_SERVICE',
      'CAP_NET_RAW',
      'CAP_SETUID',
      'CAP_SETGID',
    ]);
  });
});

describe('extra WireGuard ports (--wg-extra-ports, issue 23)', () => {
  it('by default redirects UDP 53 and 443 to the listen port, only from outside the tunnels and to local addresses', () => {
    const text = renderNft(opts('--port', '51821'));
    expect(text).toContain('chain wg-ports {\n\t\ttype nat hook prerouting priority dstnat; policy accept;');
    expect(text).toContain(
      'iifname != { "wg0", "wovpn-udp", "wovpn-tcp" } fib daddr type local udp dport { 53, 443 } redirect to :51821',
    );
    // UDP only: the stealth core's TCP 443 is never taken.
    expect(text).not.toMatch(/tcp dport|meta l4proto/);
    expect(renderAgentEnv(opts())).toContain('\nWARREN_WG_EXTRA_PORTS=53,443\n');
  });

  it('names one port without a set, and none leaves out the chain and the setting', () => {
    expect(renderNft(opts('--wg-extra-ports', '443', '--services', 'none'))).toContain(
      'iifname != { "wg0" } fib daddr type local udp dport 443 redirect to :51820',
    );
    const none = renderNft(opts('--wg-extra-ports', 'none'));
    expect(none).not.toContain('wg-ports');
    expect(none).not.toContain('redirect');
    expect(renderAgentEnv(opts('--wg-extra-ports', 'none'))).not.toContain('WARREN_WG_EXTRA_PORTS');
  });
});
