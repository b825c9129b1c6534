import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  NODE_SERVICES_PATH,
  RESTRICTED_PATHS,
  SERVICES_PATHS,
  envelope,
  langCodeQuery,
  nodeServices,
  openvpnConfigQuery,
  restrictedLangCodeBody,
  restrictedOpenvpnConfigBody,
  restrictedSessionBody,
  serviceCredentials,
  servicesOverview,
} from '@warren/contract';
import { UnauthorizedError } from '../../lib/errors.js';
import { bearerToken, userOf } from '../../plugins/auth.js';
import { mainProductOnly, restrictedRoute } from '../../plugins/restricted.js';
import type { NodeRow } from '../nodes/repository.js';
import type { OpenvpnSocks5Service } from './service.js';

export interface OpenvpnSocks5RoutesDeps {
  openvpnSocks5: OpenvpnSocks5Service;
  auth: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** The node of a node token: the node API's one check (nodes/service.ts `authenticate`). */
  authenticateNode: (token: string) => Promise<NodeRow | undefined>;
}

export async function openvpnSocks5Routes(
  fastify: FastifyInstance,
  { openvpnSocks5, auth, authenticateNode }: OpenvpnSocks5RoutesDeps,
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['openvpn-socks5'];

  // The answers hold the OpenVPN/SOCKS5 password: a restricted host reads them encrypted (below).
  app.get(
    SERVICES_PATHS.overview,
    {
      preValidation: mainProductOnly,
      preHandler: auth,
      schema: { tags, querystring: langCodeQuery, response: { 200: envelope(servicesOverview) } },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return { data: await openvpnSocks5.overview(userOf(request), request.query.langCode) };
    },
  );

  app.post(
    SERVICES_PATHS.resetCredentials,
    {
      preValidation: mainProductOnly,
      preHandler: auth,
      schema: { tags, response: { 200: z.object({ data: serviceCredentials, message: z.string() }) } },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return {
        data: await openvpnSocks5.resetPassword(userOf(request)),
        message: 'A new password was made. The old one stops working within seconds.',
      };
    },
  );

  restrictedRoute(
    fastify,
    `/api/${RESTRICTED_PATHS.services}`,
    { tags, auth, body: restrictedLangCodeBody },
    async (request, body, reply) => {
      reply.header('cache-control', 'no-store');
      return { data: await openvpnSocks5.overview(userOf(request), body.langCode) };
    },
  );
  restrictedRoute(
    fastify,
    `/api/${RESTRICTED_PATHS.resetServiceCredentials}`,
    { tags, auth, body: restrictedSessionBody },
    async (request, _body, reply) => {
      reply.header('cache-control', 'no-store');
      return {
        data: await openvpnSocks5.resetPassword(userOf(request)),
        message: 'A new password was made. The old one stops working within seconds.',
      };
    },
  );

  app.get(
    SERVICES_PATHS.openvpnConfig,
    {
      preValidation: mainProductOnly,
      preHandler: auth,
      schema: { tags, querystring: openvpnConfigQuery.extend(langCodeQuery.shape) },
    },
    async (request, reply) => {
      const { fileName, text } = await openvpnSocks5.openvpnConfig(
        userOf(request),
        request.query,
        request.query.langCode,
      );
      return reply
        .type('application/x-openvpn-profile')
        .header('content-disposition', `attachment; filename="${fileName}"`)
        .header('cache-control', 'no-store')
        .send(text);
    },
  );

  // The Keenetic file carries the username and password: a restricted host gets every file encrypted.
  restrictedRoute(
    fastify,
    `/api/${RESTRICTED_PATHS.openvpnConfig}`,
    { tags, auth, body: restrictedOpenvpnConfigBody },
    async (request, body, reply) => {
      reply.header('cache-control', 'no-store');
      const { token: _token, langCode, ...query } = body;
      return { data: await openvpnSocks5.openvpnConfig(userOf(request), query, langCode) };
    },
  );

  // The node's own side: authenticated by the node token like /api/nodes/desired (XSRF-exempt prefix).
  app.get(
    NODE_SERVICES_PATH,
    { schema: { tags: ['nodes'], security: [{ bearer: [] }], response: { 200: envelope(nodeServices) } } },
    async (request, reply) => {
      const token = bearerToken(request);
      const node = token ? await authenticateNode(token) : undefined;
      if (!node) throw new UnauthorizedError('Unknown node token.');
      reply.header('cache-control', 'no-store');
      return { data: await openvpnSocks5.nodeServices(node) };
    },
  );
}
