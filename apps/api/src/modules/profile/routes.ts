import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  changePasswordBody,
  dbBigId,
  dbId,
  emailPreferencesBody,
  envelope,
  okMessage,
  profile,
  profileUpdateBody,
  sessionList,
  setNewPasswordBody,
  twoFactorCodeBody,
  twoFactorDisableBody,
  twoFactorEnabled,
  twoFactorSetup,
} from '@warren/contract';
import { userOf } from '../../plugins/auth.js';
import { mainProductOnly } from '../../plugins/restricted.js';
import type { RequestContext } from '../users/service.js';
import { profileRestrictedRoutes } from './restricted-routes.js';
import type { ProfileService } from './service.js';

const ok = (message: string) => ({ data: { ok: true as const }, message });

export async function profileRoutes(
  fastify: FastifyInstance,
  {
    profiles,
    auth,
    context,
  }: {
    profiles: ProfileService;
    auth: (r: FastifyRequest, s: FastifyReply) => Promise<void>;
    /** The request's brand and mail-link origin (plugins/context.ts), for the security notices' links. */
    context: (r: FastifyRequest) => RequestContext;
  },
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['profile'];
  const token = (request: FastifyRequest) => request.currentToken!;

  app.get(
    '/api/profile',
    { preValidation: mainProductOnly, preHandler: auth, schema: { tags, response: { 200: envelope(profile) } } },
    async (request) => ({ data: await profiles.get(userOf(request)) }),
  );

  app.post(
    '/api/profile/update',
    {
      preValidation: mainProductOnly,
      preHandler: auth,
      schema: { tags, body: profileUpdateBody, response: { 200: envelope(profile) } },
    },
    async (request) => {
      return { data: await profiles.updateAndGet(userOf(request), request.body) };
    },
  );

  app.post(
    '/api/profile/password',
    {
      preValidation: mainProductOnly,
      preHandler: auth,
      schema: { tags, body: changePasswordBody, response: { 200: okMessage } },
    },
    async (request) => {
      await profiles.changePassword(
        userOf(request),
        token(request),
        request.body.currentPassword,
        request.body.password,
      );
      return ok('Password updated successfully');
    },
  );

  app.post(
    '/api/users/setNewPassword',
    {
      preValidation: mainProductOnly,
      preHandler: auth,
      schema: { tags, body: setNewPasswordBody, response: { 200: okMessage } },
    },
    async (request) => {
      await profiles.setNewPassword(
        userOf(request),
        token(request),
        request.body.token,
        request.body.password,
        request.ip,
      );
      return ok('Password updated successfully');
    },
  );

  app.post(
    '/api/profile/email/unsubscribe',
    { preHandler: auth, schema: { tags, body: emailPreferencesBody, response: { 200: okMessage } } },
    async (request) => {
      await profiles.setMarketingEmails(userOf(request).id, request.body.marketing);
      return ok(
        request.body.marketing ? 'You will receive news and offers.' : 'You are unsubscribed from news and offers.',
      );
    },
  );

  app.get(
    '/api/profile/sessions',
    { preHandler: auth, schema: { tags, response: { 200: envelope(sessionList) } } },
    async (request) => ({
      data: { items: await profiles.sessions(userOf(request), token(request)) },
    }),
  );
  app.post(
    '/api/profile/sessions/revokeOthers',
    { preHandler: auth, schema: { tags, response: { 200: okMessage } } },
    async (request) => {
      await profiles.revokeOthers(userOf(request), token(request));
      return ok('Signed out of every other session.');
    },
  );
  app.post(
    '/api/profile/sessions/revoke',
    {
      preHandler: auth,
      schema: { tags, body: z.object({ id: dbBigId({ coerce: true }) }), response: { 200: okMessage } },
    },
    async (request) => {
      await profiles.revokeSession(userOf(request), request.body.id);
      return ok('Session signed out.');
    },
  );

  app.post(
    '/api/profile/2fa/setup',
    { preValidation: mainProductOnly, preHandler: auth, schema: { tags, response: { 200: envelope(twoFactorSetup) } } },
    async (request) => ({
      data: await profiles.startTwoFactor(userOf(request)),
    }),
  );
  app.post(
    '/api/profile/2fa/enable',
    {
      preValidation: mainProductOnly,
      preHandler: auth,
      schema: { tags, body: twoFactorCodeBody, response: { 200: envelope(twoFactorEnabled) } },
    },
    async (request) => ({
      data: await profiles.enableTwoFactor(userOf(request), request.body.code, context(request)),
    }),
  );
  app.post(
    '/api/profile/2fa/disable',
    {
      preValidation: mainProductOnly,
      preHandler: auth,
      schema: { tags, body: twoFactorDisableBody, response: { 200: okMessage } },
    },
    async (request) => {
      await profiles.disableTwoFactor(
        userOf(request),
        token(request),
        request.body.password,
        request.body.code,
        context(request),
      );
      return ok('Two-factor sign-in is off.');
    },
  );

  await profileRestrictedRoutes(fastify, { profiles, auth, context });

  // One-click unsubscribe (RFC 8058): outside /api so mail clients can POST without an XSRF header; the link is signed.
  const unsubscribeQuery = z.object({ u: dbId({ coerce: true }), sig: z.string().min(10).max(100) });
  const page = (text: string) =>
    `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Email preferences</title><body style="font-family:system-ui,sans-serif;max-width:520px;margin:64px auto;padding:0 16px">${text}</body></html>`;
  app.get('/unsubscribe', { schema: { hide: true, querystring: unsubscribeQuery } }, async (request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .send(
        page(
          `<h1>Unsubscribe from news and offers?</h1><form method="post"><button style="padding:10px 18px;font-size:16px">Unsubscribe</button></form><p>Account emails (receipts, password resets) still reach you.</p>`,
        ),
      ),
  );
  app.post('/unsubscribe', { schema: { hide: true, querystring: unsubscribeQuery } }, async (request, reply) => {
    const done = await profiles.unsubscribeBySignature(request.query.u, request.query.sig);
    return reply
      .status(done ? 200 : 400)
      .type('text/html; charset=utf-8')
      .send(
        page(
          done
            ? '<h1>You are unsubscribed.</h1><p>We will not send you news and offers any more.</p>'
            : '<h1>This link is not valid.</h1>',
        ),
      );
  });
}
