import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { NodeRow } from '../nodes/repository.js';
import type { PkiStore } from './pki.js';
import { openvpnSocks5Routes } from './routes.js';
import type { OpenvpnSocks5Service } from './service.js';

export interface OpenvpnSocks5ModuleOptions {
  /** From the composition root (the VPN area's services, nodes/area.ts). */
  openvpnSocks5: OpenvpnSocks5Service;
  pki: PkiStore;
  auth: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** The node of a node token (the node API's one check: nodes/service.ts). */
  authenticateNode: (token: string) => Promise<NodeRow | undefined>;
}

/**
 * OpenVPN, router configurations and SOCKS5: the PKI (CA made on first start), service credentials,
 * the user's calls and the node's `/api/nodes/services`. The nodes' desired state carries the
 * service users (nodes/service.ts calls serviceUsersFor).
 */
async function openvpnSocks5(
  app: FastifyInstance,
  { openvpnSocks5, pki, auth, authenticateNode }: OpenvpnSocks5ModuleOptions,
) {
  await pki.ensureCa();
  await app.register(openvpnSocks5Routes, { openvpnSocks5, auth, authenticateNode });
}

export const openvpnSocks5Module = fp(openvpnSocks5, { name: 'openvpn-socks5' });
