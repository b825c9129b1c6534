/**
 * The node's OpenVPN server configuration, rendered purely; it matches the clients' .ovpn files
 * (apps/api/src/modules/openvpn-socks5/render.ts): tls-crypt, TLS 1.2+, NCP's default AEAD ciphers, no
 * compression, no client certificates: clients authenticate with service credentials that the
 * helper checks against the agent's local state. One server per protocol (UDP and TCP).
 */
export interface OpenVpnServerInput {
  protocol: 'udp' | 'tcp';
  port: number;
  /** The tun device (unique per node). */
  dev: string;
  /** IPv4 client pool, e.g. 10.130.0.0/16; the server takes the first address. */
  network: string;
  /** Directory with ca.crt, server.crt, server.key, tls-crypt.key; tmp/ for via-file credentials. */
  dir: string;
  usersDir: string;
  node: string;
  helper: string;
  dns: { plain: string; filter: string };
  managementSocket: string;
}

const SAFE_PATH = /^[A-Za-z0-9_./+-]+$/;

export function cidrToNetmask(cidr: string): { address: string; netmask: string } {
  const m = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec(cidr);
  const bits = m ? Number(m[2]) : NaN;
  if (!m || bits < 8 || bits > 29 || m[1]!.split('.').some((o) => Number(o) > 255))
    throw new Error(`not an IPv4 pool: ${cidr}`);
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return { address: m[1]!, netmask: [24, 16, 8, 0].map((s) => (mask >>> s) & 255).join('.') };
}

export function renderOpenVpnServer(o: OpenVpnServerInput): string {
  for (const p of [o.dir, o.usersDir, o.node, o.helper, o.managementSocket])
    if (!SAFE_PATH.test(p)) throw new Error(`path not usable in an OpenVPN config: ${p}`);
  if (!/^[A-Za-z0-9_-]{1,15}$/.test(o.dev)) throw new Error(`invalid tun name ${o.dev}`);
  for (const a of [o.dns.plain, o.dns.filter])
    if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(a)) throw new Error(`invalid resolver ${a}`);
  const net = cidrToNetmask(o.network);
  return [
    '# Written by warren-agent; changes here are overwritten.',
    `port ${o.port}`,
    `proto ${o.protocol === 'udp' ? 'udp' : 'tcp-server'}`,
    `dev ${o.dev}`,
    'dev-type tun',
    'topology subnet',
    `server ${net.address} ${net.netmask}`,
    `ca ${o.dir}/ca.crt`,
    `cert ${o.dir}/server.crt`,
    `key ${o.dir}/server.key`,
    'dh none',
    `tls-crypt ${o.dir}/tls-crypt.key`,
    'tls-version-min 1.2',
    'verify-client-cert none',
    'username-as-common-name',
    // One account may connect several devices.
    'duplicate-cn',
    'script-security 2',
    `tmp-dir ${o.dir}/tmp`,
    `auth-user-pass-verify "${o.node} ${o.helper} verify ${o.usersDir}" via-file`,
    `client-connect "${o.node} ${o.helper} connect ${o.usersDir} ${o.dns.plain} ${o.dns.filter}"`,
    'push "redirect-gateway def1 bypass-dhcp"',
    'keepalive 10 60',
    'persist-key',
    'persist-tun',
    ...(o.protocol === 'udp' ? ['explicit-exit-notify 1'] : []),
    `management ${o.managementSocket} unix`,
    // No connection log: verb 1 prints start-up and errors, not clients' addresses.
    'verb 1',
    'mute 10',
    '',
  ].join('\n');
}
