import type { OpenVpnProtocol, OvpnVariant, ServiceCredentials } from '@warren/contract';

/**
 * OpenVPN files and the nodes' matching settings, rendered by pure functions (the agent renders the
 * server side from the same choices: tls-crypt, TLS 1.2+, NCP's default AEAD ciphers, no compression).
 */
export interface OvpnInput {
  title: string;
  protocol: OpenVpnProtocol;
  /** Every enabled node of the location; the client picks one at random and fails over. */
  remotes: { host: string; port: number }[];
  ca: string;
  tlsCrypt: string;
  variant: OvpnVariant;
  /** Only for variants whose firmware reads credentials from the file itself (Keenetic). */
  credentials?: ServiceCredentials;
}

/** Where the OpenWrt guide tells the user to save the credentials. */
export const OPENWRT_AUTH_FILE = '/etc/openvpn/warren.auth';

const clean = (s: string) => s.replace(/[\r\n]+/g, ' ').trim();
const block = (tag: string, body: string) => `<${tag}>\n${body.trim()}\n</${tag}>`;

export function renderOvpn(o: OvpnInput): string {
  if (!o.remotes.length) throw new Error('a configuration needs at least one server');
  for (const r of o.remotes)
    if (!/^[A-Za-z0-9.:-]+$/.test(r.host) || !Number.isInteger(r.port)) throw new Error(`invalid remote ${r.host}`);
  const lines = [
    `# Warren VPN: ${clean(o.title)} (OpenVPN ${o.protocol.toUpperCase()})`,
    '# Sign in with your service username and password (Setup → OpenVPN), not your account password.',
    'client',
    'dev tun',
    `proto ${o.protocol}`,
    ...o.remotes.map((r) => `remote ${r.host} ${r.port}`),
    ...(o.remotes.length > 1 ? ['remote-random'] : []),
    'resolv-retry infinite',
    'nobind',
    'persist-key',
    'persist-tun',
    'remote-cert-tls server',
    'tls-version-min 1.2',
    ...(o.protocol === 'udp' ? ['explicit-exit-notify 2'] : []),
  ];
  if (o.variant === 'keenetic') {
    if (!o.credentials) throw new Error('the Keenetic variant carries the credentials');
    lines.push(block('auth-user-pass', `${o.credentials.username}\n${o.credentials.password}`));
  } else if (o.variant === 'openwrt') {
    lines.push(`auth-user-pass ${OPENWRT_AUTH_FILE}`);
  } else {
    lines.push('auth-user-pass');
  }
  // auth-retry nointeract: a refused sign-in (a lapsed plan) does not end the client; it keeps trying
  // with the same credentials, so a renewed or regranted plan reconnects by itself instead of the
  // customer's traffic quietly leaving outside the VPN (issue 22). GUI clients manage their own retries.
  // connect-retry 2 30: OpenVPN doubles the wait after every few failed tries up to 300 s by
  // default, so a client refused for a while came back up to 5 minutes after the renewal; capped
  // at 30 s, it is back within about half a minute (a refused try costs the node one handshake).
  lines.push(
    'auth-retry nointeract',
    'connect-retry 2 30',
    'auth-nocache',
    'verb 3',
    block('ca', o.ca),
    block('tls-crypt', o.tlsCrypt),
  );
  return `${lines.join('\n')}\n`;
}
