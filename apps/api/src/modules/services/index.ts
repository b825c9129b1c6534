import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Database } from '../../db/client.js';
import { pkiStore } from './pki.js';
import { servicesRoutes } from './routes.js';
import { servicesService } from './service.js';

export interface ServicesModuleOptions {
  db: Database;
  auth: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** OPENVPN_CA_SECRET, else APP_SECRET. */
  secret: string;
}

/**
 * OpenVPN, router configurations and SOCKS5: the PKI (CA made on first start), service credentials,
 * the user's calls and the node's `/api/nodes/services`. The nodes' desired state carries the
 * service users (nodes/service.ts calls serviceUsersFor).
 */
async function services(app: FastifyInstance, { db, auth, secret }: ServicesModuleOptions) {
  const pki = pkiStore(db, secret);
  await pki.ensureCa();
  await app.register(servicesRoutes, { services: servicesService({ db, pki, secret }), auth });
}

export const servicesModule = fp(services, { name: 'services' });
