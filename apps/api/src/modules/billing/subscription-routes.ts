import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { envelope, setAutoRenewBody, subscriptionInfo } from '@warren/contract';
import { userOf } from '../../plugins/auth.js';
import type { RenewalsService } from './renewals.js';

export interface SubscriptionRoutesDeps {
  billing: { renewals: RenewalsService };
  auth: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

const tags = ['billing'];

/** The member's own subscription: what renews, when, at what price and with what; auto-renew on or off. */
export async function subscriptionRoutes(fastify: FastifyInstance, deps: SubscriptionRoutesDeps) {
  const { auth } = deps;
  const { renewals } = deps.billing;
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/api/billing/subscription',
    { preHandler: auth, schema: { tags, response: { 200: envelope(subscriptionInfo) } } },
    async (request, reply) => {
      reply.header('cache-control', 'private, no-store');
      return { data: await renewals.info(userOf(request)) };
    },
  );

  app.post(
    '/api/billing/subscription/autoRenew',
    {
      preHandler: auth,
      schema: {
        tags,
        body: setAutoRenewBody,
        response: { 200: envelope(subscriptionInfo) },
        description:
          '409 when the plan cannot renew (lifetime, no active plan, or no method that can be charged again).',
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'private, no-store');
      return { data: await renewals.setAutoRenew(userOf(request), request.body.enabled) };
    },
  );
}
