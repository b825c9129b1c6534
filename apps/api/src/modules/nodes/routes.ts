import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  desiredState,
  desiredStateQuery,
  envelope,
  MAX_REPORTED_PEERS,
  NODE_PATHS,
  nodeReport,
  nodeReportResult,
} from '@warren/contract';
import { UnauthorizedError } from '../../lib/errors.js';
import { bearerToken } from '../../plugins/auth.js';
import type { NodeRow } from './repository.js';
import { type NodesService, desiredStateJson } from './service.js';

declare module 'fastify' {
  interface FastifyRequest {
    currentNode?: NodeRow;
  }
}

/** Agents' calls. Authenticated by the node token (bearer); exempt from XSRF (plugins/xsrf.ts). */
export async function nodesRoutes(fastify: FastifyInstance, { nodes }: { nodes: NodesService }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['nodes'];
  const requireNode = async (request: FastifyRequest) => {
    const token = bearerToken(request);
    const node = token ? await nodes.authenticate(token) : undefined;
    if (!node) throw new UnauthorizedError('Unknown node token.');
    request.currentNode = node;
  };
  const security = [{ bearer: [] }];

  app.get(
    NODE_PATHS.desired,
    {
      preHandler: requireNode,
      schema: { tags, security, querystring: desiredStateQuery, response: { 200: envelope(desiredState) } },
    },
    async (request, reply) => {
      const state = await nodes.desiredState(request.currentNode!, request.query);
      if (!state.full) return { data: state };
      // A full state is written a batch of peers at a time (desiredStateJson): the same JSON, never one long block.
      // (A stream is sent as is: the response schema's serializer applies to objects only.)
      return reply.type('application/json; charset=utf-8').send(Readable.from(desiredStateJson(state)) as never);
    },
  );

  app.post(
    NODE_PATHS.report,
    {
      preHandler: requireNode,
      // A report lists up to MAX_REPORTED_PEERS peers (~100 bytes each).
      bodyLimit: MAX_REPORTED_PEERS * 160,
      schema: { tags, security, body: nodeReport, response: { 200: envelope(nodeReportResult) } },
    },
    async (request) => ({ data: { accepted: await nodes.report(request.currentNode!, request.body) } }),
  );
}
