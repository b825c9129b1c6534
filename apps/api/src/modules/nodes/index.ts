import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { wireguardRoutes } from '../wireguard/routes.js';
import { locationsRoutes } from '../locations/routes.js';
import type { VpnServices } from './area.js';
import { nodesRoutes } from './routes.js';

export { vpnServices, type VpnServices, type VpnServicesDeps } from './area.js';

export interface VpnModuleOptions {
  /** From the composition root (composition.ts): the same services the CLI uses. */
  vpn: VpnServices;
  auth: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** Country code of a client address (the composition root's GeoIp): the WireGuard page's recommended location. */
  countryOf: (ip: string) => string;
}

/**
 * The VPN area's server locations, downloads, WireGuard devices and the node API agents long-poll,
 * in one plugin. Seeds the locations (idempotently) when it starts; closing the app releases the
 * waiting long polls.
 */
async function vpnArea(app: FastifyInstance, { vpn, auth, countryOf }: VpnModuleOptions) {
  await vpn.seed();
  const unlisten = await vpn.listenForChanges();
  app.addHook('onClose', unlisten);
  app.addHook('preClose', async () => vpn.watcher.close());
  app.addHook('onClose', async () => vpn.watcher.close());

  await app.register(locationsRoutes, { locations: vpn.locations, auth });
  await app.register(wireguardRoutes, { wireguard: vpn.wireguard, auth, countryOf });
  await app.register(nodesRoutes, { nodes: vpn.nodes });
}

export const vpnModule = fp(vpnArea, { name: 'vpn' });
export { eraseWireguardData } from '../wireguard/repository.js';
export { eraseServiceCredentials } from '../openvpn-socks5/repository.js';
