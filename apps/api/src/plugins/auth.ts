import type { FastifyReply, FastifyRequest } from 'fastify';
import { UnauthorizedError } from '../lib/errors.js';
import type { TokenRow, UserRow } from '../types/account.js';

declare module 'fastify' {
  interface FastifyRequest {
    currentUser?: UserRow;
    currentToken?: TokenRow;
  }
}

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1];
}

/**
 * preHandler for routes that need a signed-in user. When the token is old enough a fresh one
 * goes back in the Authorization response header; the old one lasts a short grace period.
 */
export function requireUser(users: {
  authenticate(token: string): Promise<{ user: UserRow; tokenRow: TokenRow; rotatedTo?: string } | undefined>;
}) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const token = bearerToken(request);
    const session = token ? await users.authenticate(token) : undefined;
    if (!session) throw new UnauthorizedError();
    request.currentUser = session.user;
    request.currentToken = session.tokenRow;
    if (session.rotatedTo) reply.header('authorization', `Bearer ${session.rotatedTo}`);
  };
}

export function userOf(request: FastifyRequest): UserRow {
  if (!request.currentUser) throw new UnauthorizedError();
  return request.currentUser;
}
