import { stringify as yamlStringify } from 'yaml';

/**
 * Share links and subscription profiles, pure. The formats are the ones the common apps import:
 * - vless:// and trojan:// as v2rayN exports them (the XTLS "VMessAEAD / VLESS share link"
 *   proposal): uuid or password as userinfo, `encryption=none`, `security=tls`, `sni`, `type`,
 *   `host` and `path` (URL-encoded), the name as the URL-encoded fragment. v2rayN, v2rayNG,
 *   Hiddify, Streisand, Shadowrocket, Happ and NekoBox read them. Never `allowInsecure`: the
 *   nodes' certificates are verified like any website's.
 * - the base64 of the newline-joined links (the "subscription" those apps refresh);
 * - a Clash Meta (mihomo) profile (YAML) and a sing-box profile (JSON) for the apps that want those.
 */
export interface StealthEndpoint {
  /** The location's display name, e.g. "Warren · Germany, Frankfurt". */
  name: string;
  host: string;
  port: number;
  wsPath: string;
}

export interface StealthCredentials {
  id: string;
  password: string;
}

export interface RenderedLink {
  protocol: 'vless' | 'trojan';
  /** Unique within a profile: Clash and sing-box refuse two proxies of one name. */
  tag: string;
  url: string;
}

const tagOf = (e: StealthEndpoint, protocol: 'vless' | 'trojan') =>
  `${e.name} · ${protocol === 'vless' ? 'VLESS' : 'Trojan'}`;
/** IPv6 literals go in brackets in a URL authority. */
const authority = (host: string, port: number) => `${host.includes(':') ? `[${host}]` : host}:${port}`;

export function vlessLink(e: StealthEndpoint, c: StealthCredentials): RenderedLink {
  const q = new URLSearchParams({
    encryption: 'none',
    security: 'tls',
    sni: e.host,
    type: 'ws',
    host: e.host,
    path: e.wsPath,
  });
  const tag = tagOf(e, 'vless');
  // URLSearchParams writes spaces as "+"; the path has none (contract: [A-Za-z0-9_-]) and "/" becomes %2F as the apps expect.
  return {
    protocol: 'vless',
    tag,
    url: `vless://${c.id}@${authority(e.host, e.port)}?${q.toString()}#${encodeURIComponent(tag)}`,
  };
}

export function trojanLink(e: StealthEndpoint, c: StealthCredentials): RenderedLink {
  const q = new URLSearchParams({ security: 'tls', sni: e.host, type: 'tcp', headerType: 'none' });
  const tag = tagOf(e, 'trojan');
  return {
    protocol: 'trojan',
    tag,
    url: `trojan://${encodeURIComponent(c.password)}@${authority(e.host, e.port)}?${q.toString()}#${encodeURIComponent(tag)}`,
  };
}

export const linksFor = (endpoints: StealthEndpoint[], c: StealthCredentials): RenderedLink[] =>
  endpoints.flatMap((e) => [vlessLink(e, c), trojanLink(e, c)]);

export const base64Subscription = (links: RenderedLink[]): string =>
  Buffer.from(links.map((l) => l.url).join('\n'), 'utf8').toString('base64');

/** A Clash Meta (mihomo) profile: the proxies, a selector (with an automatic choice) and every connection through it. */
export function clashProfile(endpoints: StealthEndpoint[], c: StealthCredentials, groupName: string): string {
  const proxies = endpoints.flatMap((e) => [
    {
      name: tagOf(e, 'vless'),
      type: 'vless',
      server: e.host,
      port: e.port,
      uuid: c.id,
      udp: true,
      tls: true,
      servername: e.host,
      'skip-cert-verify': false,
      network: 'ws',
      'ws-opts': { path: e.wsPath, headers: { Host: e.host } },
    },
    {
      name: tagOf(e, 'trojan'),
      type: 'trojan',
      server: e.host,
      port: e.port,
      password: c.password,
      udp: true,
      sni: e.host,
      'skip-cert-verify': false,
    },
  ]);
  const names = proxies.map((p) => p.name);
  const auto = `${groupName} · Auto`;
  const doc = {
    'mixed-port': 7890,
    'allow-lan': false,
    mode: 'rule',
    'log-level': 'warning',
    proxies,
    'proxy-groups': [
      { name: groupName, type: 'select', proxies: names.length ? [auto, ...names] : ['DIRECT'] },
      ...(names.length
        ? [{ name: auto, type: 'url-test', proxies: names, url: 'https://www.gstatic.com/generate_204', interval: 300 }]
        : []),
    ],
    rules: [`MATCH,${groupName}`],
  };
  return yamlStringify(doc, { lineWidth: 0 });
}

/**
 * A sing-box profile (1.11+ rule actions, 1.12 DNS servers): a TUN inbound, the proxies behind a
 * selector with an automatic choice, DNS over HTTPS through the tunnel (a censor's resolver lies)
 * and the nodes' own names resolved locally.
 */
export function singboxProfile(endpoints: StealthEndpoint[], c: StealthCredentials, groupName: string): string {
  const proxies = endpoints.flatMap((e) => [
    {
      type: 'vless',
      tag: tagOf(e, 'vless'),
      server: e.host,
      server_port: e.port,
      uuid: c.id,
      tls: { enabled: true, server_name: e.host },
      transport: { type: 'ws', path: e.wsPath, headers: { Host: e.host } },
    },
    {
      type: 'trojan',
      tag: tagOf(e, 'trojan'),
      server: e.host,
      server_port: e.port,
      password: c.password,
      tls: { enabled: true, server_name: e.host },
    },
  ]);
  const tags = proxies.map((p) => p.tag);
  const auto = `${groupName} · Auto`;
  const doc = {
    log: { level: 'warn' },
    dns: {
      servers: [
        { type: 'https', tag: 'remote', server: '1.1.1.1', detour: groupName },
        { type: 'local', tag: 'local' },
      ],
      final: 'remote',
    },
    inbounds: [
      {
        type: 'tun',
        tag: 'tun-in',
        address: ['172.19.0.1/30', 'fdfe:dcba:9876::1/126'],
        auto_route: true,
        strict_route: true,
      },
    ],
    outbounds: [
      {
        type: 'selector',
        tag: groupName,
        outbounds: tags.length ? [auto, ...tags] : ['direct'],
        ...(tags.length ? { default: auto } : {}),
      },
      ...(tags.length ? [{ type: 'urltest', tag: auto, outbounds: tags }] : []),
      ...proxies,
      { type: 'direct', tag: 'direct' },
    ],
    route: {
      rules: [{ action: 'sniff' }, { protocol: 'dns', action: 'hijack-dns' }],
      final: groupName,
      auto_detect_interface: true,
      default_domain_resolver: 'local',
    },
  };
  return JSON.stringify(doc, null, 2);
}
