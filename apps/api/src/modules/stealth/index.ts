import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { stealthRoutes } from './routes.js';
import type { StealthService } from './service.js';

export { stealthService, type StealthService, STEALTH_LIMITS } from './service.js';
export { stealthKeys, type StealthKeys } from './credentials.js';
export { stealthNodeSide, type StealthNodeSide } from './nodes.js';
export { SUBSCRIPTION_ROUTE } from './routes.js';
export { eraseStealthData } from './repository.js';

export interface StealthModuleOptions {
  /** From the composition root. */
  stealth: StealthService;
  auth: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

/**
 * Stealth protocols (issue 21): VLESS over WebSocket + TLS and Trojan over TLS. The customer's
 * credentials, share links and subscription URL (`/api/setup/stealth/*`, `/api/sub/<secret>`).
 * The nodes' desired state carries the stealth users and the reports the core's status and bytes
 * (nodes/service.ts calls stealthNodeSide).
 */
async function stealth(app: FastifyInstance, { stealth, auth }: StealthModuleOptions) {
  await app.register(stealthRoutes, { stealth, auth });
}

export const stealthModule = fp(stealth, { name: 'stealth' });
