import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  AD_BLOCK_PATHS,
  adBlockCategoriesBody,
  adBlockSettings,
  envelope,
  featureList,
  featureStateBody,
  featureStateResult,
} from '@warren/contract';
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
  // The ad blocker's categories (issue 23): what the switch blocks when on.
  app.get(
    AD_BLOCK_PATHS.categories,
    { preHandler: auth, schema: { tags, response: { 200: envelope(adBlockSettings) } } },
    async (request) => ({ data: await features.adBlocker(userOf(request)) }),
  );
  app.post(
    AD_BLOCK_PATHS.categories,
    { preHandler: auth, schema: { tags, body: adBlockCategoriesBody, response: { 200: envelope(adBlockSettings) } } },
    async (request) => ({ data: await features.setCategories(userOf(request), request.body.categories) }),
  );
}
