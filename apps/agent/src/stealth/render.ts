/**
 * The stealth core's (V2Ray 4.x, Debian's `v2ray`) configuration, as a pure function. One public
 * TLS port runs Trojan; whatever is not Trojan falls back by its first request: the WebSocket path
 * to a loopback VLESS-over-WebSocket inbound (so VLESS also works behind a CDN that ends TLS and
 * speaks WebSocket onwards), everything else to the ordinary website the agent serves on loopback.
 * A browser, a scanner or an active probe therefore meets a web server with a valid certificate.
 *
 * The configuration holds no customer: users are added and removed at runtime through the core's
 * API (HandlerService), so a change never restarts the core nor touches other customers' connections.
 */

/** Inbound tags the agent's API calls name. */
export const CORE_TAGS = { trojan: 'trojan', vless: 'vless', api: 'api' } as const;

/** Loopback ports inside the node; nothing outside the node reaches them (and customers may not, see DENIED_DESTINATIONS). */
export const CORE_LOOPBACK = { api: 10085, vless: 10086, site: 10080 } as const;

/**
 * Destinations a customer's connection may never reach through the core: the node itself (its
 * loopback services: the core's own unauthenticated API, the agent's site, metrics), link-local
 * (cloud metadata) and multicast, as the SOCKS5 proxy refuses them (socks/server.ts defaultDenied).
 */
export const DENIED_DESTINATIONS = [
  '0.0.0.0/8',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '224.0.0.0/3',
  // (IPv4-mapped IPv6 addresses are matched as IPv4 by the core, so 127.0.0.0/8 covers ::ffff:127.0.0.1.)
  '::/128',
  '::1/128',
  'fe80::/10',
  'ff00::/8',
] as const;

export interface CoreConfigInput {
  /** Public listen address and TLS port. */
  listen: string;
  port: number;
  /** The WebSocket path VLESS is served on ("/" + random). */
  wsPath: string;
  /** PEM text of the certificate chain and its key (inline: the unit hands the core this one file as a credential). */
  certPem: string;
  keyPem: string;
  /** Loopback ports (CORE_LOOPBACK by default). */
  loopback?: { api: number; vless: number; site: number };
}

const lines = (pem: string) => pem.trim().split(/\r?\n/);

export function renderCoreConfig(i: CoreConfigInput): Record<string, unknown> {
  const lo = i.loopback ?? CORE_LOOPBACK;
  if (!/^\/[A-Za-z0-9_-]{1,64}$/.test(i.wsPath)) throw new Error(`invalid WebSocket path ${JSON.stringify(i.wsPath)}`);
  if (!Number.isInteger(i.port) || i.port < 1 || i.port > 65535) throw new Error(`invalid port ${i.port}`);
  return {
    // No access log: it would hold customers' addresses and destinations.
    log: { loglevel: 'warning', access: 'none' },
    api: { tag: CORE_TAGS.api, services: ['HandlerService', 'StatsService'] },
    stats: {},
    policy: {
      // Level 0 is every customer: per-user byte counters (bytes only, keyed by the user's email `u<owner>`).
      levels: { '0': { statsUserUplink: true, statsUserDownlink: true, handshake: 4, connIdle: 120 } },
    },
    inbounds: [
      {
        tag: CORE_TAGS.api,
        listen: '127.0.0.1',
        port: lo.api,
        protocol: 'dokodemo-door',
        settings: { address: '127.0.0.1' },
      },
      {
        tag: CORE_TAGS.trojan,
        listen: i.listen,
        port: i.port,
        protocol: 'trojan',
        settings: {
          clients: [],
          // First match wins: the WebSocket path is VLESS's, anything else is the website.
          fallbacks: [{ path: i.wsPath, dest: lo.vless }, { dest: lo.site }],
        },
        streamSettings: {
          network: 'tcp',
          security: 'tls',
          tlsSettings: {
            // HTTP/1.1 only: fallbacks and WebSocket need it, and a website offering it is ordinary.
            alpn: ['http/1.1'],
            minVersion: '1.2',
            certificates: [{ certificate: lines(i.certPem), key: lines(i.keyPem) }],
          },
        },
      },
      {
        tag: CORE_TAGS.vless,
        listen: '127.0.0.1',
        port: lo.vless,
        protocol: 'vless',
        settings: { clients: [], decryption: 'none' },
        streamSettings: { network: 'ws', security: 'none', wsSettings: { path: i.wsPath } },
      },
    ],
    outbounds: [
      // UseIP: the destination is resolved before it leaves, so the routing rules below see addresses.
      { tag: 'direct', protocol: 'freedom', settings: { domainStrategy: 'UseIP' } },
      { tag: 'blocked', protocol: 'blackhole', settings: {} },
    ],
    routing: {
      domainStrategy: 'IPOnDemand',
      rules: [
        { type: 'field', inboundTag: [CORE_TAGS.api], outboundTag: CORE_TAGS.api },
        { type: 'field', ip: [...DENIED_DESTINATIONS], outboundTag: 'blocked' },
        { type: 'field', domain: ['full:localhost'], outboundTag: 'blocked' },
      ],
    },
  };
}

/** The file setup writes (mode 600: it holds the key). */
export function renderCoreConfigFile(i: CoreConfigInput): string {
  return `${JSON.stringify(renderCoreConfig(i), null, 2)}\n`;
}
