import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  downloadsResult,
  envelope,
  langCodeQuery,
  operationSystemsResult,
  serverListResult,
  SETUP_PATHS,
} from '@warren/contract';
import { userOf } from '../../plugins/auth.js';
import type { LocationsService } from './service.js';

export interface LocationsRoutesDeps {
  locations: LocationsService;
  auth: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

export async function locationsRoutes(fastify: FastifyInstance, { locations, auth }: LocationsRoutesDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['setup'];

  app.get(
    SETUP_PATHS.servers,
    { preHandler: auth, schema: { tags, querystring: langCodeQuery, response: { 200: envelope(serverListResult) } } },
    async (request) => ({ data: { serverList: await locations.serverList(userOf(request), request.query.langCode) } }),
  );

  // The catalogue is public: the checkout and iOS download pages show it before sign-in.
  app.get(SETUP_PATHS.downloads, { schema: { tags, response: { 200: envelope(downloadsResult) } } }, async () => ({
    data: { items: locations.downloads() },
  }));
  app.get(
    SETUP_PATHS.operationSystems,
    { schema: { tags: ['dashboard'], response: { 200: envelope(operationSystemsResult) } } },
    async () => ({
      data: { items: locations.operationSystems() },
    }),
  );
}
