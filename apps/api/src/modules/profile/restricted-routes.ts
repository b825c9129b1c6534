import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  restrictedChangePasswordBody,
  restrictedProfileUpdateBody,
  restrictedSessionBody,
  restrictedSetNewPasswordBody,
  restrictedTwoFactorDisableBody,
  restrictedTwoFactorEnableBody,
} from '@warren/contract';
import { userOf } from '../../plugins/auth.js';
import { restrictedRoute } from '../../plugins/restricted.js';
import type { RequestContext } from '../users/service.js';
import type { ProfileService } from './service.js';

/**
 * The encrypted variants of the profile calls that carry the email, a password, a one-time code
 * or a TOTP secret, for restricted hosts (README: Restricted hosts). The session token travels
 * inside the body; each runs the same service call as its plain twin, which refuses such a host.
 */
export async function profileRestrictedRoutes(
  app: FastifyInstance,
  {
    profiles,
    auth,
    context,
  }: {
    profiles: ProfileService;
    auth: (r: FastifyRequest, s: FastifyReply) => Promise<void>;
    context: (r: FastifyRequest) => RequestContext;
  },
) {
  const tags = ['profile'];
  const ok = (message: string) => ({ data: { ok: true as const }, message });
  const session = { tags, auth };

  /** The profile (its email) as GET profile answers it. */
  restrictedRoute(app, '/api/profile/restrictedGet', { ...session, body: restrictedSessionBody }, async (request) => ({
    data: await profiles.get(userOf(request)),
  }));

  restrictedRoute(
    app,
    '/api/profile/restrictedUpdate',
    { ...session, body: restrictedProfileUpdateBody },
    async (request, body) => {
      const { token: _token, ...update } = body;
      return { data: await profiles.updateAndGet(userOf(request), update) };
    },
  );

  restrictedRoute(
    app,
    '/api/profile/restrictedPassword',
    { ...session, body: restrictedChangePasswordBody },
    async (request, body) => {
      await profiles.changePassword(userOf(request), request.currentToken!, body.currentPassword, body.password);
      return ok('Password updated successfully');
    },
  );

  restrictedRoute(
    app,
    '/api/users/restrictedSetNewPassword',
    { ...session, body: restrictedSetNewPasswordBody, sessionField: 'sessionToken' },
    async (request, body) => {
      await profiles.setNewPassword(userOf(request), request.currentToken!, body.token, body.password, request.ip);
      return ok('Password updated successfully');
    },
  );

  restrictedRoute(
    app,
    '/api/profile/2fa/restrictedSetup',
    { ...session, body: restrictedSessionBody },
    async (request) => ({ data: await profiles.startTwoFactor(userOf(request)) }),
  );

  restrictedRoute(
    app,
    '/api/profile/2fa/restrictedEnable',
    { ...session, body: restrictedTwoFactorEnableBody },
    async (request, body) => ({
      data: await profiles.enableTwoFactor(userOf(request), body.code, context(request)),
    }),
  );

  restrictedRoute(
    app,
    '/api/profile/2fa/restrictedDisable',
    { ...session, body: restrictedTwoFactorDisableBody },
    async (request, body) => {
      await profiles.disableTwoFactor(
        userOf(request),
        request.currentToken!,
        body.password,
        body.code,
        context(request),
      );
      return ok('Two-factor sign-in is off.');
    },
  );
}
