import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { envelope, featureList, featureStateBody, featureStateResult } from '@warren/contract';
import { userOf } from '../../plugins/auth.js';
import type { FeaturesService } from './service.js';

export async function featuresRoutes(
  fastify: FastifyInstance,
  { features, auth }: { features: FeaturesService; auth: (r: FastifyRequest, s: FastifyReply) => Promise<void> },
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['setup'];
  app.get(
    '/api/setup/features/get',
    { preHandler: auth, schema: { tags, response: { 200: envelope(featureList) } } },
    async (request) => ({
      data: { items: await features.list(userOf(request)) },
    }),
  );
  app.post(
    '/api/setup/features/state',
    { preHandler: auth, schema: { tags, body: featureStateBody, response: { 200: featureStateResult } } },
    async (request) => {
      const data = await features.setState(userOf(request), request.body.id, request.body.state);
      return { result: true, data };
    },
  );
}
