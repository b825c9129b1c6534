import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LANGUAGES, envelope, paymentHistory, paymentParams, refundAnswer } from '@warren/contract';
import { userOf } from '../../plugins/auth.js';
import type { HistoryService } from './history.js';
import type { ReceiptsService } from './receipts.js';
import type { RefundRequestService } from './refund-request.js';

export interface HistoryRoutesDeps {
  billing: { history: HistoryService; receipts: ReceiptsService; refunds: RefundRequestService };
  auth: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

const tags = ['billing'];

/** The customer's payments, receipts and money-back requests (own payments only: another member's is a 404). */
export async function paymentHistoryRoutes(fastify: FastifyInstance, deps: HistoryRoutesDeps) {
  const { auth } = deps;
  const { history, receipts, refunds } = deps.billing;
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/api/billing/payments',
    { preHandler: auth, schema: { tags, response: { 200: envelope(paymentHistory) } } },
    async (request, reply) => {
      reply.header('cache-control', 'private, no-store');
      return { data: await history.list(userOf(request).id) };
    },
  );

  app.get(
    '/api/billing/payments/:publicId/receipt',
    {
      preHandler: auth,
      schema: {
        tags,
        params: paymentParams,
        querystring: z.object({ lang: z.enum(LANGUAGES).optional() }),
        description: 'The receipt as application/pdf.',
      },
    },
    async (request, reply) => {
      const { pdf, filename } = await receipts.pdf(userOf(request).id, request.params.publicId, request.query.lang);
      return reply
        .header('cache-control', 'private, no-store')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .type('application/pdf')
        .send(pdf);
    },
  );

  app.post(
    '/api/billing/payments/:publicId/refund',
    { preHandler: auth, schema: { tags, params: paymentParams, response: { 200: envelope(refundAnswer) } } },
    async (request) => {
      const user = userOf(request);
      const outcome = await refunds.request(user.id, request.params.publicId);
      return { data: { ...(await history.list(user.id)), outcome } };
    },
  );
}
