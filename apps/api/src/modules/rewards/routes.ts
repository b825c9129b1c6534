import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { envelope, rewards } from '@warren/contract';
import type { BrandOrigins } from '../../brands/origins.js';
import { userOf } from '../../plugins/auth.js';
import { contextOf } from '../../plugins/context.js';
import type { RewardsService } from './service.js';

export async function rewardsRoutes(
  fastify: FastifyInstance,
  opts: { rewards: RewardsService; origins: BrandOrigins; auth: (r: FastifyRequest, s: FastifyReply) => Promise<void> },
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/rewards',
    { preHandler: opts.auth, schema: { tags: ['rewards'], response: { 200: envelope(rewards) } } },
    async (request) => ({
      data: await opts.rewards.summary(userOf(request), contextOf(request, opts.origins).origin),
    }),
  );
}
