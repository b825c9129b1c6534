import net from 'node:net';
import path from 'node:path';

/**
 * Settings of the node's OpenVPN, SOCKS5 and DNS services, from the environment (the agent's own
 * flags stay WireGuard's). Off unless WARREN_SERVICES lists them. Ports come from the API.
 *
 *   WARREN_SERVICES        openvpn,socks,dns (any of them)           default: none
 *   WARREN_OPENVPN_BIN     the openvpn server                          default: openvpn
 *   WARREN_OPENVPN_UDP_NET client pool of the UDP server               default: 10.130.0.0/16
 *   WARREN_OPENVPN_TCP_NET client pool of the TCP server               default: 10.131.0.0/16
 *   WARREN_DNSMASQ_BIN     dnsmasq                                     default: dnsmasq
 *   WARREN_DNS_PLAIN       address of the plain resolver (added to lo) default: 10.255.53.1
 *   WARREN_DNS_FILTER      address of the ad-blocking resolver         default: 10.255.53.2
 *   WARREN_DNS_WG          more addresses of the plain resolver: the   default: none
 *                          WireGuard gateways, which configs name as DNS (set by `setup`)
 *   WARREN_DNS_UPSTREAM    upstream resolvers, comma-separated         default: the system's (resolv.conf)
 *   WARREN_BLOCKLIST       the single blocklist of before categories,  default: /etc/warren/blocklist.txt
 *                          read as more "ads" (watched)
 *   WARREN_BLOCKLIST_DIR   the operator's lists per category:          default: /etc/warren/blocklists
 *                          <dir>/{ads,trackers,malware,adult,gambling}.txt (watched; a missing
 *                          file: the small default shipped in apps/agent/blocklists/)
 *   WARREN_DNS_CATEGORIES  a free /27 whose .1–.31 are the ad blocker's default: 10.255.54.0
 *                          resolvers for OpenVPN, one per choice of categories (added to lo)
 *   WARREN_SOCKS_LISTEN    SOCKS5 listen address                       default: 0.0.0.0
 *   WARREN_IP_BIN          iproute2's ip                               default: ip
 */
export interface ServicesConfig {
  openvpn: boolean;
  socks: boolean;
  dns: boolean;
  openvpnBin: string;
  udpNet: string;
  tcpNet: string;
  dnsmasqBin: string;
  dnsPlain: string;
  dnsFilter: string;
  /** Further addresses the plain resolver listens on (the WireGuard gateways, IPv4 and IPv6). */
  wgDns: string[];
  upstream: string[];
  blocklist: string;
  blocklistDir: string;
  /** The first address of the /27 of OpenVPN's category resolvers (its .N blocks the categories of bits N). */
  dnsCategories: string;
  socksListen: string;
  ipBin: string;
  dir: string;
}

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/;

export function loadServicesConfig(stateDir: string, env: NodeJS.ProcessEnv = process.env): ServicesConfig | null {
  const list = (env.WARREN_SERVICES ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = list.filter((s) => !['openvpn', 'socks', 'dns'].includes(s));
  if (unknown.length) throw new Error(`WARREN_SERVICES: unknown service ${unknown.join(', ')} (openvpn, socks, dns)`);
  if (!list.length) return null;
  const c: ServicesConfig = {
    openvpn: list.includes('openvpn'),
    socks: list.includes('socks'),
    dns: list.includes('dns'),
    openvpnBin: env.WARREN_OPENVPN_BIN || 'openvpn',
    udpNet: env.WARREN_OPENVPN_UDP_NET || '10.130.0.0/16',
    tcpNet: env.WARREN_OPENVPN_TCP_NET || '10.131.0.0/16',
    dnsmasqBin: env.WARREN_DNSMASQ_BIN || 'dnsmasq',
    dnsPlain: env.WARREN_DNS_PLAIN || '10.255.53.1',
    dnsFilter: env.WARREN_DNS_FILTER || '10.255.53.2',
    wgDns: (env.WARREN_DNS_WG ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    upstream: (env.WARREN_DNS_UPSTREAM ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    blocklist: path.resolve(env.WARREN_BLOCKLIST || '/etc/warren/blocklist.txt'),
    blocklistDir: path.resolve(env.WARREN_BLOCKLIST_DIR || '/etc/warren/blocklists'),
    dnsCategories: env.WARREN_DNS_CATEGORIES || '10.255.54.0',
    socksListen: env.WARREN_SOCKS_LISTEN || '0.0.0.0',
    ipBin: env.WARREN_IP_BIN || 'ip',
    dir: path.join(stateDir, 'services'),
  };
  for (const [k, v] of [
    ['WARREN_DNS_PLAIN', c.dnsPlain],
    ['WARREN_DNS_FILTER', c.dnsFilter],
    ['WARREN_DNS_CATEGORIES', c.dnsCategories],
    ...c.upstream.map((u) => ['WARREN_DNS_UPSTREAM', u]),
  ] as const) {
    if (!IPV4.test(v)) throw new Error(`${k}: ${v} is not an IPv4 address`);
  }
  if (Number(c.dnsCategories.split('.')[3]) % 32 !== 0)
    throw new Error(
      `WARREN_DNS_CATEGORIES: ${c.dnsCategories} does not start a /27 (its last number must be a multiple of 32)`,
    );
  for (const a of c.wgDns) if (!net.isIP(a)) throw new Error(`WARREN_DNS_WG: ${a} is not an IP address`);
  return c;
}
