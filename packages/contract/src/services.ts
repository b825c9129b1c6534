import { z } from 'zod';
import { locationUnavailable, setupLocation } from './locations.js';

/**
 * OpenVPN configuration files, router configurations and the SOCKS5 proxy (spec section 2:
 * /setup/configuration-files, /setup/router-configuration, /setup/socks5-proxy), and the part of
 * the node API their servers need. One set of service credentials per account serves OpenVPN and
 * SOCKS5; it is not the account password.
 */

export const SERVICES_PATHS = {
  overview: '/api/setup/services/get',
  resetCredentials: '/api/setup/services/credentials/reset',
  openvpnConfig: '/api/setup/openvpn/config',
} as const;

export const OPENVPN_PROTOCOLS = ['udp', 'tcp'] as const;
export type OpenVpnProtocol = (typeof OPENVPN_PROTOCOLS)[number];

/** Router firmwares with their own variant and instructions; `default` is the plain .ovpn for apps. */
export const ROUTER_FIRMWARES = ['openwrt', 'dd-wrt', 'pfsense', 'asus-merlin', 'keenetic', 'mikrotik'] as const;
export type RouterFirmware = (typeof ROUTER_FIRMWARES)[number];
export const OVPN_VARIANTS = ['default', ...ROUTER_FIRMWARES] as const;
export type OvpnVariant = (typeof OVPN_VARIANTS)[number];

export const serviceCredentials = z.object({ username: z.string(), password: z.string() });
export type ServiceCredentials = z.infer<typeof serviceCredentials>;

export const serviceNode = z.object({
  host: z.string(),
  udpPort: z.number().int(),
  tcpPort: z.number().int(),
  socksPort: z.number().int(),
});
export type ServiceNode = z.infer<typeof serviceNode>;

export const servicesLocation = setupLocation.extend({
  nodes: z.array(serviceNode),
  /** Why a location customers knew takes no one now (every node switched off or being retired); null when it serves. */
  unavailable: locationUnavailable.nullable().optional(),
});
export type ServicesLocation = z.infer<typeof servicesLocation>;

export const servicesOverview = z.object({
  access: z.enum(['none', 'free', 'paid']),
  credentials: serviceCredentials,
  /** SOCKS5 is for paying accounts only. */
  socksAvailable: z.boolean(),
  /** The ad blocker's current state (applies to OpenVPN and SOCKS5 from the next connection). */
  adblock: z.boolean(),
  locations: z.array(servicesLocation),
});
export type ServicesOverview = z.infer<typeof servicesOverview>;

const slug = z.string().regex(/^[a-z0-9-]{2,40}$/, { error: 'Unknown location.' });
export const openvpnConfigQuery = z.object({
  location: slug,
  protocol: z.enum(OPENVPN_PROTOCOLS).default('udp'),
  variant: z.enum(OVPN_VARIANTS).default('default'),
});
export type OpenVpnConfigQuery = z.infer<typeof openvpnConfigQuery>;

/** `warren-de-frankfurt-udp.ovpn`; router variants add the firmware. */
export function ovpnFileName(slug: string, protocol: OpenVpnProtocol, variant: OvpnVariant = 'default'): string {
  return `warren-${slug}-${protocol}${variant === 'default' ? '' : `-${variant}`}.ovpn`;
}

// --- node side -----------------------------------------------------------------------------

export const NODE_SERVICES_PATH = '/api/nodes/services';

/**
 * scrypt parameters of the verifiers nodes receive: `scrypt$N$r$p$salt(base64)$hash(base64)`.
 * The password itself never reaches a node.
 */
export const SERVICE_VERIFIER = { N: 16_384, r: 8, p: 1, keyLen: 32 } as const;
export const SERVICE_USERNAME_RE = /^[a-z0-9]{6,32}$/;

export const nodeServiceUser = z.object({
  /** The account (as in peers' owner), so a delta replaces the account's entry. */
  owner: z.number().int(),
  username: z.string().regex(SERVICE_USERNAME_RE),
  verifier: z.string().max(200),
  /** May connect to this node's OpenVPN servers (the WireGuard access rule for this location). */
  openvpn: z.boolean(),
  /** May use this node's SOCKS5 proxy (a current paid plan). */
  socks: z.boolean(),
  /** Gets the filtering resolver. */
  adblock: z.boolean(),
});
export type NodeServiceUser = z.infer<typeof nodeServiceUser>;

/** What a node needs to run OpenVPN and SOCKS5; its own key is sent to it and to nobody else. */
export const nodeServices = z.object({
  openvpn: z.object({
    ca: z.string(),
    cert: z.string(),
    key: z.string(),
    tlsCrypt: z.string(),
    udpPort: z.number().int(),
    tcpPort: z.number().int(),
  }),
  socksPort: z.number().int(),
});
export type NodeServices = z.infer<typeof nodeServices>;
