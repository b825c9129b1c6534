import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { affiliateSessionBody, affiliateStats, envelope, okMessage } from '@warren/contract';
import type { BrandOrigins } from '../../brands/origins.js';
import { userOf } from '../../plugins/auth.js';
import { contextOf } from '../../plugins/context.js';
import type { UserRow } from '../users/index.js';
import type { AffiliateService } from './service.js';

export async function affiliateRoutes(
  fastify: FastifyInstance,
  opts: {
    affiliate: AffiliateService;
    origins: BrandOrigins;
    auth: (r: FastifyRequest, s: FastifyReply) => Promise<void>;
    /** The signed-in member when the request carries a good token (a click counts either way). */
    optionalUser: (request: FastifyRequest) => Promise<UserRow | undefined>;
  },
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/affiliate/stats',
    { preHandler: opts.auth, schema: { tags: ['affiliate'], response: { 200: envelope(affiliateStats) } } },
    async (request) => ({
      data: await opts.affiliate.stats(userOf(request), contextOf(request, opts.origins).origin),
    }),
  );

  app.post(
    '/api/affiliate/session/create',
    { schema: { tags: ['affiliate'], body: affiliateSessionBody, response: { 200: okMessage } } },
    async (request) => {
      // Signed-in or not: a click on a referral link counts either way; the user is attached when known.
      await opts.affiliate.recordSession(
        request.body.referralID,
        request.body.url,
        (await opts.optionalUser(request))?.id ?? null,
      );
      return { data: { ok: true as const }, message: 'Recorded.' };
    },
  );
}
