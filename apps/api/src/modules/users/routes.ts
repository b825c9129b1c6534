import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  annihilationBody,
  authResult,
  envelope,
  loginBody,
  okMessage,
  onetimeLink,
  onetimeLinkQuery,
  onetimeLoginBody,
  registerBody,
  requestResetBody,
  resetPasswordBody,
  sessionSetBody,
  user,
  verifyUserBody,
} from '@warren/contract';
import { userOf } from '../../plugins/auth.js';
import { contextOf } from '../../plugins/context.js';
import { mainProductOnly } from '../../plugins/restricted.js';
import { RESET_SENT, type UsersRoutesDeps, usersRestrictedRoutes } from './restricted-routes.js';
import { toUserDto } from './service.js';

export type { UsersRoutesDeps };

const tags = ['users'];

export async function usersRoutes(fastify: FastifyInstance, { users, origins, captcha, auth }: UsersRoutesDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const ctx = (request: FastifyRequest) => contextOf(request, origins);

  app.post(
    '/api/users/login',
    { preValidation: mainProductOnly, schema: { tags, body: loginBody, response: { 200: envelope(authResult) } } },
    async (request) => {
      await captcha.verify(request.body['g-recaptcha-response'], request.ip);
      return { data: await users.login(request.body, ctx(request)) };
    },
  );

  app.post(
    '/api/users/register',
    { preValidation: mainProductOnly, schema: { tags, body: registerBody, response: { 201: envelope(authResult) } } },
    async (request, reply) => {
      await captcha.verify(request.body['g-recaptcha-response'], request.ip);
      return reply.status(201).send({ data: await users.register(request.body, ctx(request)) });
    },
  );

  app.post(
    '/api/users/requestResetPassword',
    { preValidation: mainProductOnly, schema: { tags, body: requestResetBody, response: { 200: okMessage } } },
    async (request) => {
      await captcha.verify(request.body['g-recaptcha-response'], request.ip);
      await users.requestPasswordReset(request.body.email, ctx(request));
      return { data: { ok: true as const }, message: RESET_SENT };
    },
  );

  app.post(
    '/api/users/resetPassword',
    { preValidation: mainProductOnly, schema: { tags, body: resetPasswordBody, response: { 200: okMessage } } },
    async (request) => {
      await users.resetPassword(request.body, ctx(request));
      return { data: { ok: true as const }, message: 'Password updated successfully' };
    },
  );

  app.post(
    '/api/users/verifyUser',
    {
      preValidation: mainProductOnly,
      schema: { tags, body: verifyUserBody, response: { 200: envelope(z.object({ user })) } },
    },
    async (request) => ({
      data: { user: await users.verifyEmail(request.body, ctx(request)) },
    }),
  );

  app.post(
    '/api/users/resendVerification',
    { preHandler: auth, schema: { tags, response: { 200: okMessage } } },
    async (request) => {
      await users.resendVerification(userOf(request), ctx(request));
      return { data: { ok: true as const }, message: 'We have sent you a new verification email.' };
    },
  );

  // "Resend email" on the sign-in page after a failed verification link: no session, the old link stands for the mailbox.
  const resendByLinkBody = verifyUserBody.pick({ userId: true, token: true });
  app.post(
    '/api/users/resendVerificationByLink',
    { preValidation: mainProductOnly, schema: { tags, body: resendByLinkBody, response: { 200: okMessage } } },
    async (request) => {
      await users.resendVerificationByLink(request.body, ctx(request));
      return {
        data: { ok: true as const },
        message: 'If this account still needs verifying, we have sent a new verification email.',
      };
    },
  );

  // set-new-pass needs a token from the mailbox: a session alone (perhaps a stolen one) cannot set a password.
  app.post(
    '/api/users/setNewPassword/sendLink',
    { preHandler: auth, schema: { tags, response: { 200: okMessage } } },
    async (request) => {
      await users.sendSetPasswordLink(userOf(request), ctx(request));
      return { data: { ok: true as const }, message: 'We have emailed you a link to set a new password.' };
    },
  );

  // A restricted host checks its session with restrictedUserCheck (no bearer header, the answer sealed).
  app.get(
    '/api/users/info/get',
    { preValidation: mainProductOnly, preHandler: auth, schema: { tags, response: { 200: envelope(user) } } },
    async (request) => ({
      data: toUserDto(userOf(request), request.brand),
    }),
  );

  app.post(
    '/api/users/logout',
    { preHandler: auth, schema: { tags, response: { 200: okMessage } } },
    async (request) => {
      await users.logout(request.currentToken!.id);
      return { data: { ok: true as const }, message: 'Signed out.' };
    },
  );

  app.post(
    '/api/users/session/set',
    { preHandler: auth, schema: { tags, body: sessionSetBody, response: { 200: okMessage } } },
    async (request) => {
      await users.setSession(userOf(request), request.body.sessionID, request.body.voluumID);
      return { data: { ok: true as const }, message: 'Saved.' };
    },
  );

  app.get(
    '/api/users/onetimeLinkByPromo',
    {
      preValidation: mainProductOnly,
      preHandler: auth,
      schema: { tags, querystring: onetimeLinkQuery, response: { 200: envelope(onetimeLink) } },
    },
    async (request) => ({
      data: await users.onetimeLink(userOf(request), request.query.promocode, ctx(request)),
    }),
  );

  app.post(
    '/api/users/onetimeLogin',
    {
      preValidation: mainProductOnly,
      schema: { tags, body: onetimeLoginBody, response: { 200: envelope(authResult) } },
    },
    async (request) => ({
      data: await users.onetimeLogin(request.body.userID, request.body.token, ctx(request)),
    }),
  );

  app.post(
    '/api/users/annihilation',
    {
      preValidation: mainProductOnly,
      preHandler: auth,
      schema: { tags, body: annihilationBody, response: { 200: z.string() } },
    },
    async (request, reply) => {
      await users.annihilate(userOf(request), request.currentToken!.id, request.body.password, ctx(request));
      return reply.type('text/plain; charset=utf-8').send('Account deleted');
    },
  );

  // The restricted (encrypted) variants of these calls: restricted-routes.ts.
  await usersRestrictedRoutes(fastify, { users, origins, captcha, auth });
}
