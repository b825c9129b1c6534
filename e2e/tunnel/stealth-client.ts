/**
 * The customer's app, as far as the tests need it: the subscription URL's answer (base64 of one
 * share link a line) decoded, and a Debian v2ray client configuration made from one vless:// or
 * trojan:// link and nothing else, with a local SOCKS port as the app's proxy. The stealth tunnel
 * test and the stealth bench use it.
 */
export function decodeSubscription(body: string): string[] {
  return Buffer.from(body.trim(), 'base64').toString('utf8').split(/\r?\n/).filter(Boolean);
}

/** A v2ray client config from one share link, as an app imports it: nothing else is known about the node. */
export function clientConfigFromLink(link: string, socksPort: number): Record<string, unknown> {
  const u = new URL(link);
  const q = u.searchParams;
  const protocol = u.protocol.slice(0, -1);
  if (protocol !== 'vless' && protocol !== 'trojan') throw new Error(`not a vless or trojan link: ${protocol}`);
  // An app honours these; a link asking to skip verification must never exist.
  for (const k of ['allowInsecure', 'insecure', 'skip-cert-verify'])
    if (q.has(k) && q.get(k) !== '0' && q.get(k) !== 'false')
      throw new Error(`the link asks to skip verification (${k})`);
  if ((q.get('security') ?? (protocol === 'trojan' ? 'tls' : 'none')) !== 'tls') throw new Error('the link is not TLS');
  const address = u.hostname;
  const port = Number(u.port || 443);
  const secret = decodeURIComponent(u.username);
  const network = q.get('type') ?? 'tcp';
  const tlsSettings: Record<string, unknown> = { serverName: q.get('sni') || address, allowInsecure: false };
  if (q.get('alpn')) tlsSettings.alpn = q.get('alpn')!.split(',');
  const streamSettings: Record<string, unknown> = { network, security: 'tls', tlsSettings };
  if (network === 'ws')
    streamSettings.wsSettings = { path: q.get('path') ?? '/', headers: { Host: q.get('host') || address } };
  const settings =
    protocol === 'vless'
      ? { vnext: [{ address, port, users: [{ id: secret, encryption: q.get('encryption') ?? 'none' }] }] }
      : { servers: [{ address, port, password: secret }] };
  return {
    log: { loglevel: 'warning' },
    inbounds: [{ listen: '127.0.0.1', port: socksPort, protocol: 'socks', settings: { udp: false } }],
    outbounds: [{ protocol, settings, streamSettings }],
  };
}
