import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { PkiStore } from './pki.js';
import { servicesRoutes } from './routes.js';
import type { ServicesService } from './service.js';

export interface ServicesModuleOptions {
  /** From the composition root (the VPN area's services, nodes/area.ts). */
  services: ServicesService;
  pki: PkiStore;
  auth: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

/**
 * OpenVPN, router configurations and SOCKS5: the PKI (CA made on first start), service credentials,
 * the user's calls and the node's `/api/nodes/services`. The nodes' desired state carries the
 * service users (nodes/service.ts calls serviceUsersFor).
 */
async function services(app: FastifyInstance, { services, pki, auth }: ServicesModuleOptions) {
  await pki.ensureCa();
  await app.register(servicesRoutes, { services, auth });
}

export const servicesModule = fp(services, { name: 'services' });
