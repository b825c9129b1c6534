import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  loginBody,
  onetimeLoginBody,
  registerBody,
  requestResetBody,
  resetPasswordBody,
  restrictedAnnihilationBody,
  restrictedOnetimeLinkBody,
  restrictedSessionBody,
  verifyUserBody,
} from '@warren/contract';
import { UnauthorizedError } from '../../lib/errors.js';
import { userOf } from '../../plugins/auth.js';
import { contextOf } from '../../plugins/context.js';
import { restrictedRoute } from '../../plugins/restricted.js';
import type { BrandOrigins } from '../../brands/origins.js';
import type { CaptchaVerifier } from '../../lib/captcha.js';
import { type UsersService, toUserDto } from './service.js';

/** What the users routes (routes.ts and these) are given by app.ts. */
export interface UsersRoutesDeps {
  users: UsersService;
  origins: BrandOrigins;
  captcha: CaptchaVerifier;
  auth: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

export const RESET_SENT = 'If an account exists for this email, we have sent a link to reset its password.';

/**
 * The encrypted variants of the users calls for restricted hosts (README: Restricted hosts).
 * Each runs the same service call as its plain twin in routes.ts, which refuses such a host.
 */
export async function usersRestrictedRoutes(app: FastifyInstance, { users, origins, captcha, auth }: UsersRoutesDeps) {
  const tags = ['users'];
  const ctx = (request: FastifyRequest) => contextOf(request, origins);

  restrictedRoute(app, '/api/users/restrictedLogin', { tags, body: loginBody }, async (request, body) => {
    await captcha.verify(body['g-recaptcha-response'], request.ip);
    return { data: await users.login(body, ctx(request)) };
  });

  restrictedRoute(
    app,
    '/api/users/restrictedRegister',
    { tags, body: registerBody, status: 201 },
    async (request, body) => {
      await captcha.verify(body['g-recaptcha-response'], request.ip);
      return { data: await users.register({ ...body, isRestrictedDomain: true }, ctx(request)) };
    },
  );

  restrictedRoute(
    app,
    '/api/users/restrictedRequestResetPassword',
    { tags, body: requestResetBody },
    async (request, body) => {
      await captcha.verify(body['g-recaptcha-response'], request.ip);
      await users.requestPasswordReset(body.email, ctx(request));
      return { data: { ok: true }, message: RESET_SENT };
    },
  );

  /** The new password from the emailed link. */
  restrictedRoute(
    app,
    '/api/users/restrictedResetPassword',
    { tags, body: resetPasswordBody },
    async (request, body) => {
      await users.resetPassword(body, ctx(request));
      return { data: { ok: true }, message: 'Password updated successfully' };
    },
  );

  /** Lets a restricted host check a stored token without the bearer header a filter could spot. */
  restrictedRoute(
    app,
    '/api/users/restrictedUserCheck',
    { tags, body: restrictedSessionBody },
    async (request, body) => {
      const session = await users.authenticate(body.token);
      if (!session) throw new UnauthorizedError();
      return { data: { user: toUserDto(session.user, request.brand), token: session.rotatedTo ?? body.token } };
    },
  );

  /** The emailed verification link (its userId and token). */
  restrictedRoute(app, '/api/users/restrictedVerifyUser', { tags, body: verifyUserBody }, async (request, body) => ({
    data: { user: await users.verifyEmail(body, ctx(request)) },
  }));

  restrictedRoute(
    app,
    '/api/users/restrictedResendVerificationByLink',
    { tags, body: verifyUserBody.pick({ userId: true, token: true }) },
    async (request, body) => {
      await users.resendVerificationByLink(body, ctx(request));
      return {
        data: { ok: true },
        message: 'If this account still needs verifying, we have sent a new verification email.',
      };
    },
  );

  /** A one-time sign-in link's userID and token; the answer holds the new session. */
  restrictedRoute(
    app,
    '/api/users/restrictedOnetimeLogin',
    { tags, body: onetimeLoginBody },
    async (request, body) => ({
      data: await users.onetimeLogin(body.userID, body.token, ctx(request)),
    }),
  );

  restrictedRoute(
    app,
    '/api/users/restrictedOnetimeLinkByPromo',
    { tags, body: restrictedOnetimeLinkBody, auth },
    async (request, body) => ({
      data: await users.onetimeLink(userOf(request), body.promocode, ctx(request)),
    }),
  );

  /** Account deletion: the password inside the encrypted body. */
  restrictedRoute(
    app,
    '/api/users/restrictedAnnihilation',
    { tags, body: restrictedAnnihilationBody, auth },
    async (request, body) => {
      await users.annihilate(userOf(request), request.currentToken!.id, body.password, ctx(request));
      return { data: { ok: true }, message: 'Account deleted' };
    },
  );
}
