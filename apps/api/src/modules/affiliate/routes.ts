import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { affiliateStats, envelope } from '@warren/contract';
import type { BrandRegistry } from '../../brands/registry.js';
import { userOf } from '../../plugins/auth.js';
import { contextOf } from '../../plugins/context.js';
import type { AffiliateService } from './service.js';

export async function affiliateRoutes(
  fastify: FastifyInstance,
  opts: { affiliate: AffiliateService; brands: BrandRegistry; publicUrl?: string; auth: (r: FastifyRequest, s: FastifyReply) => Promise<void> },
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get('/api/affiliate/stats', { preHandler: opts.auth, schema: { tags: ['affiliate'], response: { 200: envelope(affiliateStats) } } }, async (request) => ({
    data: await opts.affiliate.stats(userOf(request), contextOf(request, opts.brands, opts.publicUrl).origin),
  }));
}
