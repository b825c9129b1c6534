import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  RESTRICTED_PATHS,
  STEALTH_PATHS,
  STEALTH_SUBSCRIPTION_FORMATS,
  envelope,
  langCodeQuery,
  restrictedLangCodeBody,
  stealthOverview,
} from '@warren/contract';
import { userOf } from '../../plugins/auth.js';
import { mainProductOnly, restrictedRoute } from '../../plugins/restricted.js';
import type { StealthService } from './service.js';

export interface StealthRoutesDeps {
  stealth: StealthService;
  auth: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

/** The path the subscription is served on; app.ts's log serializer keeps its secret out of the logs (redactUrl). */
export const SUBSCRIPTION_ROUTE = `${STEALTH_PATHS.subscriptionPrefix}:secret`;

export async function stealthRoutes(fastify: FastifyInstance, { stealth, auth }: StealthRoutesDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['stealth'];
  const resetMessage = 'New stealth credentials and a new subscription URL were made. The old ones stopped working.';

  // The answers hold the subscription URL and the share links: a restricted host reads them encrypted (below).
  app.get(
    STEALTH_PATHS.get,
    {
      preValidation: mainProductOnly,
      preHandler: auth,
      schema: { tags, querystring: langCodeQuery, response: { 200: envelope(stealthOverview) } },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return { data: await stealth.overview(userOf(request), request.query.langCode) };
    },
  );

  app.post(
    STEALTH_PATHS.reset,
    {
      preValidation: mainProductOnly,
      preHandler: auth,
      schema: {
        tags,
        querystring: langCodeQuery,
        response: { 200: z.object({ data: stealthOverview, message: z.string() }) },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return {
        data: await stealth.reset(userOf(request), request.query.langCode),
        message: resetMessage,
      };
    },
  );

  restrictedRoute(
    fastify,
    `/api/${RESTRICTED_PATHS.stealth}`,
    { tags, auth, body: restrictedLangCodeBody },
    async (request, body, reply) => {
      reply.header('cache-control', 'no-store');
      return { data: await stealth.overview(userOf(request), body.langCode) };
    },
  );
  restrictedRoute(
    fastify,
    `/api/${RESTRICTED_PATHS.resetStealth}`,
    { tags, auth, body: restrictedLangCodeBody },
    async (request, body, reply) => {
      reply.header('cache-control', 'no-store');
      return { data: await stealth.reset(userOf(request), body.langCode), message: resetMessage };
    },
  );

  // Public: the secret in the path is the credential (apps cannot send headers). Never logged in clear (app.ts).
  app.get(
    SUBSCRIPTION_ROUTE,
    {
      schema: {
        tags,
        params: z.object({ secret: z.string().max(200) }),
        querystring: z.object({ format: z.enum(STEALTH_SUBSCRIPTION_FORMATS).optional() }),
      },
    },
    async (request, reply) => {
      const answer = await stealth.subscription(request.params.secret, request.query.format ?? 'base64', request.ip);
      return reply.headers(answer.headers).type(answer.contentType).send(answer.body);
    },
  );
}
