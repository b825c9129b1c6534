import net from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { WG_EXTRA_PORTS_MAX } from '@warren/contract';
import { type Pool, parsePool } from './net.js';

/**
 * `warren-agent setup` options. Every default matches what the API hands out (apps/api/src/config.ts:
 * WG_IPV4_POOL, WG_IPV6_POOL, and WG_DNS, which defaults to the two pools' gateways), so a node set
 * up with no options serves the configs customers download.
 */
export const DEFAULT_IPV4_POOL = '10.64.0.0/10';
export const DEFAULT_IPV6_POOL = 'fd77:6172:7265::/48';
export const SERVICES = ['openvpn', 'socks', 'dns'] as const;
export type Service = (typeof SERVICES)[number];

export interface SetupOptions {
  apiUrl?: string;
  apiSocket?: string;
  tokenFile: string;
  iface: string;
  port: number;
  /**
   * Public UDP ports redirected to the WireGuard port (issue 23: through networks that let only
   * DNS or HTTPS ports out); default 53 and 443; [] with --wg-extra-ports none.
   */
  wgExtraPorts: number[];
  v4: Pool;
  v6: Pool;
  services: Record<Service, boolean>;
  dnsUpstream: string[];
  blocklist: string;
  /** The ad blocker's category lists, one file per category (the agent's WARREN_BLOCKLIST_DIR). */
  blocklistDir: string;
  openvpnUdpNet: string;
  openvpnTcpNet: string;
  metrics?: string;
  /** The stealth core (VLESS and Trojan over TLS, issue 21): off unless --stealth-host is given. */
  stealth?: { host: string; port: number; cert: string; key: string; httpPort: number };
  wireguard: 'auto' | 'kernel' | 'wireguard-go';
  etcDir: string;
  stateDir: string;
  systemdDir: string;
  sysctlDir: string;
  start: boolean;
  dryRun: boolean;
  /** --new-key: replace the node's WireGuard key (every customer of the node then needs a new config); never done otherwise. */
  newKey: boolean;
}

export const SETUP_HELP = `Usage: warren-agent setup [options]

Turns this server into a Warren node: the WireGuard interface (kernel module, else wireguard-go) with
its key, port and gateway addresses, forwarding and NAT (nftables table inet warren), the agent's
services config (resolver on the gateway addresses, OpenVPN, SOCKS5), and systemd units; starts them
when systemd runs. Needs root (or CAP_NET_ADMIN with write access to the directories below).
Running it again changes nothing; after a change of options it applies only the difference.

  --api URL              the API's base URL (or --api-socket)
  --api-socket PATH      reach the API through a unix socket (an API with LISTEN_SOCKET on this machine)
  --token-file PATH      the node token (from \`npx warren vpn add-node\`), mode 600
                         (default <etc-dir>/node-token; never a token on the command line)
  --interface NAME       WireGuard interface (default wg0)
  --new-key              make a new WireGuard key for this node (the old key file is kept beside it); every
                         customer's config for this node stops working until downloaded again. Setup never
                         replaces a key otherwise: a missing key file on a node that has a key, or a new
                         --interface beside another interface's key, is refused with what to do
  --port N               WireGuard listen port (default 51820; the port given to add-node)
  --wg-extra-ports LIST  more public UDP ports WireGuard is reached on, comma-separated (default 53,443),
                         or none: nftables redirects them to the listen port (table inet warren, chain
                         wg-ports), only for packets from outside the tunnels to this machine's own
                         addresses, so the resolver the tunnels use (port 53 inside) and the stealth
                         core (TCP 443) are untouched; the agent reports the ports whose rule is in place
  --ipv4-pool CIDR       the API's WG_IPV4_POOL (default ${DEFAULT_IPV4_POOL}); the node takes its first address
  --ipv6-pool CIDR       the API's WG_IPV6_POOL (default ${DEFAULT_IPV6_POOL})
  --services LIST        besides WireGuard: openvpn,socks,dns (default all three), or none
  --dns-upstream LIST    resolvers the node's resolver asks, comma-separated (default the system's)
  --blocklist PATH       the ad blocker's list (default <etc-dir>/blocklist.txt, created empty)
  --blocklist-dir DIR    the ad blocker's category lists, one file each: ads.txt, trackers.txt, malware.txt,
                         adult.txt, gambling.txt (default <etc-dir>/blocklists, created empty; a missing file
                         is the small default the agent ships); replaced in place, reloaded without a restart
  --openvpn-udp-net CIDR client pool of the OpenVPN UDP server (default 10.130.0.0/16)
  --openvpn-tcp-net CIDR client pool of the OpenVPN TCP server (default 10.131.0.0/16)
  --metrics [HOST:]PORT  the agent's Prometheus metrics (default off)
  --stealth-host NAME    serve VLESS and Trojan over TLS (Debian's v2ray) for this public host name;
                         the certificate must be for it (see README: Stealth)
  --stealth-port N       their public TLS port (default 443)
  --stealth-cert PATH    the certificate chain (PEM) for --stealth-host
  --stealth-key PATH     its private key (PEM)
  --stealth-http-port N  the same ordinary website on plain HTTP (default 80; 0: none)
  --wireguard IMPL       auto | kernel | wireguard-go (default auto: the kernel module when present)
  --etc-dir DIR          configuration: key, agent.env, warren.nft (default /etc/warren)
  --state-dir DIR        the agent's state (default /var/lib/warren-agent)
  --systemd-dir DIR      where units are written (default /etc/systemd/system)
  --sysctl-dir DIR       where the forwarding settings are written (default /etc/sysctl.d)
  --no-start             write and configure, but do not enable or start units
  --dry-run              print the plan, change nothing
  -h, --help             this text

Exit status: 0 done, 1 a step failed (or the interface name is taken by another kind of link), 64 bad options, 69 tools missing (the apt-get line is printed),
75 another setup is running, 77 not privileged.
`;

export class SetupOptionsError extends Error {}

const isCidr4 = (v: string) => {
  const [a, p] = v.split('/');
  return !!a && net.isIPv4(a) && Number.isInteger(Number(p)) && Number(p) >= 8 && Number(p) <= 30;
};

export function parseSetupArgs(argv: string[]): SetupOptions | 'help' {
  if (argv.some((a) => a === '--token' || a.startsWith('--token='))) {
    throw new SetupOptionsError(
      '--token is not an option: a command line is visible to every user (ps). Write the token to a file (mode 600) and pass --token-file',
    );
  }
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        api: { type: 'string' },
        'api-socket': { type: 'string' },
        'token-file': { type: 'string' },
        interface: { type: 'string' },
        port: { type: 'string' },
        'wg-extra-ports': { type: 'string' },
        'ipv4-pool': { type: 'string' },
        'ipv6-pool': { type: 'string' },
        services: { type: 'string' },
        'dns-upstream': { type: 'string' },
        blocklist: { type: 'string' },
        'blocklist-dir': { type: 'string' },
        'openvpn-udp-net': { type: 'string' },
        'openvpn-tcp-net': { type: 'string' },
        metrics: { type: 'string' },
        wireguard: { type: 'string' },
        'etc-dir': { type: 'string' },
        'state-dir': { type: 'string' },
        'systemd-dir': { type: 'string' },
        'sysctl-dir': { type: 'string' },
        'stealth-host': { type: 'string' },
        'stealth-port': { type: 'string' },
        'stealth-cert': { type: 'string' },
        'stealth-key': { type: 'string' },
        'stealth-http-port': { type: 'string' },
        'no-start': { type: 'boolean' },
        'dry-run': { type: 'boolean' },
        'new-key': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new SetupOptionsError((err as Error).message);
  }
  if (values.help) return 'help';
  const problems: string[] = [];
  if (!values.api && !values['api-socket'])
    problems.push('--api URL or --api-socket PATH is required (the agent needs to reach the API)');
  if (values.api && !/^https?:\/\/[^\s]+$/.test(values.api)) problems.push('--api must be an http:// or https:// URL');
  if (values['api-socket'] !== undefined && !path.isAbsolute(values['api-socket']))
    problems.push('--api-socket must be an absolute path');
  const iface = values.interface ?? 'wg0';
  if (!/^[A-Za-z0-9_.-]{1,15}$/.test(iface))
    problems.push('--interface must be a valid interface name (up to 15 characters)');
  const port = Number(values.port ?? 51820);
  if (!Number.isInteger(port) || port < 1 || port > 65535) problems.push('--port must be an integer in 1..65535');
  const extraRaw = values['wg-extra-ports'] ?? '53,443';
  const wgExtraPorts: number[] = [];
  if (extraRaw !== 'none') {
    for (const item of extraRaw.split(',').map((x) => x.trim())) {
      const n = /^\d{1,5}$/.test(item) ? Number(item) : NaN;
      if (!Number.isInteger(n) || n < 1 || n > 65535)
        problems.push(
          `--wg-extra-ports: ${JSON.stringify(item)} is not a port in 1..65535 (a list such as 53,443, or none)`,
        );
      else if (n === port)
        problems.push(`--wg-extra-ports: ${n} is the WireGuard listen port (--port) itself; list only other ports`);
      else if (wgExtraPorts.includes(n)) problems.push(`--wg-extra-ports: ${n} is listed twice`);
      else wgExtraPorts.push(n);
    }
    if (wgExtraPorts.length > WG_EXTRA_PORTS_MAX)
      problems.push(`--wg-extra-ports: at most ${WG_EXTRA_PORTS_MAX} ports`);
    wgExtraPorts.sort((a, b) => a - b);
  }
  const pool = (v: string, family: 4 | 6) => {
    try {
      return parsePool(v, family);
    } catch (err) {
      problems.push((err as Error).message);
      return { cidr: v, prefix: 0, gateway: '' };
    }
  };
  const v4 = pool(values['ipv4-pool'] ?? DEFAULT_IPV4_POOL, 4);
  const v6 = pool(values['ipv6-pool'] ?? DEFAULT_IPV6_POOL, 6);
  const list = (v: string | undefined) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const chosen =
    values.services === undefined ? [...SERVICES] : values.services === 'none' ? [] : list(values.services);
  const unknown = chosen.filter((s) => !(SERVICES as readonly string[]).includes(s));
  if (unknown.length) problems.push(`--services: unknown ${unknown.join(', ')} (openvpn, socks, dns, or none)`);
  const dnsUpstream = list(values['dns-upstream']);
  for (const u of dnsUpstream) if (!net.isIPv4(u)) problems.push(`--dns-upstream: ${u} is not an IPv4 address`);
  const udp = values['openvpn-udp-net'] ?? '10.130.0.0/16';
  const tcp = values['openvpn-tcp-net'] ?? '10.131.0.0/16';
  for (const [flag, v] of [
    ['--openvpn-udp-net', udp],
    ['--openvpn-tcp-net', tcp],
  ] as const)
    if (!isCidr4(v)) problems.push(`${flag} must be an IPv4 network a.b.c.d/8..30`);
  if (values.metrics !== undefined && !/^(?:[^\s]+:)?\d{1,5}$/.test(values.metrics))
    problems.push('--metrics must be PORT or HOST:PORT');
  const wireguard = values.wireguard ?? 'auto';
  if (!['auto', 'kernel', 'wireguard-go'].includes(wireguard))
    problems.push('--wireguard must be auto, kernel or wireguard-go');
  // Paths go into systemd units (where spaces split and % expands) and into the settings file
  // (one KEY=VALUE a line): only plain ones, refused up front rather than written wrong.
  const dir = (v: string | undefined, def: string) => {
    const p = path.resolve(v ?? def);
    if (!/^\/[\w.@+,:=/-]*$/.test(p))
      problems.push(
        `${JSON.stringify(v)} is not a plain path (letters, digits and . _ - / @ + , : = only): it is written into systemd units and agent.env`,
      );
    return p;
  };
  if (values['api-socket'] !== undefined) dir(values['api-socket'], '');
  const etcDir = dir(values['etc-dir'], '/etc/warren');
  let stealth: SetupOptions['stealth'];
  const stealthHost = values['stealth-host'];
  if (stealthHost !== undefined) {
    if (
      !/^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/.test(
        stealthHost,
      )
    )
      problems.push('--stealth-host must be a public host name (a.b.c), the one the certificate is for');
    const sPort = Number(values['stealth-port'] ?? 443);
    if (!Number.isInteger(sPort) || sPort < 1 || sPort > 65535)
      problems.push('--stealth-port must be an integer in 1..65535');
    const httpPort = Number(values['stealth-http-port'] ?? 80);
    if (!Number.isInteger(httpPort) || httpPort < 0 || httpPort > 65535)
      problems.push('--stealth-http-port must be an integer in 0..65535 (0: none)');
    if (httpPort !== 0 && httpPort === sPort) problems.push('--stealth-http-port and --stealth-port must differ');
    if (!values['stealth-cert'] || !values['stealth-key'])
      problems.push(
        '--stealth-host needs --stealth-cert and --stealth-key (a certificate for that name and its key, PEM)',
      );
    stealth = {
      host: stealthHost.toLowerCase(),
      port: sPort,
      cert: dir(values['stealth-cert'], ''),
      key: dir(values['stealth-key'], ''),
      httpPort,
    };
  } else if (
    ['stealth-port', 'stealth-cert', 'stealth-key', 'stealth-http-port'].some(
      (k) => values[k as keyof typeof values] !== undefined,
    )
  ) {
    problems.push('the --stealth-* options need --stealth-host');
  }
  const result: SetupOptions = {
    apiUrl: values.api,
    apiSocket: values['api-socket'],
    tokenFile: dir(values['token-file'], path.join(etcDir, 'node-token')),
    iface,
    port,
    wgExtraPorts,
    v4,
    v6,
    services: { openvpn: chosen.includes('openvpn'), socks: chosen.includes('socks'), dns: chosen.includes('dns') },
    dnsUpstream,
    blocklist: dir(values.blocklist, path.join(etcDir, 'blocklist.txt')),
    blocklistDir: dir(values['blocklist-dir'], path.join(etcDir, 'blocklists')),
    openvpnUdpNet: udp,
    openvpnTcpNet: tcp,
    metrics: values.metrics,
    stealth,
    wireguard: wireguard as SetupOptions['wireguard'],
    etcDir,
    stateDir: dir(values['state-dir'], '/var/lib/warren-agent'),
    systemdDir: dir(values['systemd-dir'], '/etc/systemd/system'),
    sysctlDir: dir(values['sysctl-dir'], '/etc/sysctl.d'),
    start: !values['no-start'],
    dryRun: !!values['dry-run'],
    newKey: !!values['new-key'],
  };
  if (problems.length)
    throw new SetupOptionsError(`Invalid setup options:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return result;
}
