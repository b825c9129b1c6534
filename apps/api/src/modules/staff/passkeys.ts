import type { FastifyInstance, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  type AuthenticationResponse,
  STAFF_PASSKEY_PATHS,
  type StaffRole,
  envelope,
  passkey,
  passkeyList,
  passkeyOptions,
  passkeyOptionsBody,
  passkeyRegisterOptionsBody,
  passkeyRegisterVerifyBody,
  passkeyRemoveBody,
  staffOk,
} from '@warren/contract';
import { DomainError } from '../../lib/errors.js';
import type { RateLimiter } from '../../lib/rate-limit.js';
import { PASSKEY_OPTIONS_PER_IP, type PasskeysService, type RelyingParty } from '../passkeys/index.js';
import { type SecurityMails, type UsersService, spend } from '../users/index.js';
import type { PasskeyChange } from './passkey-audit.js';
import type { StaffSession } from './sessions.js';

/**
 * Staff passkeys (issue 23): a passkey as the second step of staff sign-in, registered from the
 * operator console. Staff are accounts with a role, so a member's passkeys are the account's (the
 * same table and list as Profile → Passkeys; the owner is mailed for each change either way).
 * Adding and removing one need the password again, as in the profile: a staff session is short
 * (15 minutes idle) but may still be someone else's browser.
 *
 * Each added or removed passkey is a row of the staff audit log (./passkey-audit.ts).
 *
 * Challenge bindings: a staff sign-in's to the console's XSRF key cookie (httpOnly, the one the
 * session will be bound to), a registration's to the staff session.
 */
export interface StaffPasskeysDeps {
  passkeys: PasskeysService;
  users: Pick<UsersService, 'reload'>;
  security?: Pick<SecurityMails, 'passkeyChanged'>;
  limiter: RateLimiter;
  /** The brand and origin the request came on (brands/origins.ts), never the Host header's text. */
  rpOf: (request: FastifyRequest) => RelyingParty;
  /** The request's context for the security notice (brand, origin, address, browser). */
  contextOf: (request: FastifyRequest) => Parameters<SecurityMails['passkeyChanged']>[3];
}

const signInBinding = (xsrfKey: string) => `staff-sign-in:${xsrfKey}`;
const sessionBinding = (s: StaffSession) => `staff-session:${s.sessionId}`;
const reauthKey = (s: StaffSession) => `staff:${s.userId}:${s.sessionId}`;

/** The sign-in's passkey check (service.ts signIn's ctx.passkey): false on any failure, as a wrong code is. */
export function staffPasskeySignIn(deps: StaffPasskeysDeps, request: FastifyRequest, xsrfKey: string) {
  return async (userId: number, response: AuthenticationResponse): Promise<boolean> => {
    if (!xsrfKey) return false;
    return deps.passkeys
      .verifyAssertion({
        purpose: 'staff-sign-in',
        binding: signInBinding(xsrfKey),
        rp: deps.rpOf(request),
        response,
        expectUserId: userId,
        requireUserVerification: false,
        fieldName: 'code',
      })
      .then(
        () => true,
        (err: unknown) => {
          if (err instanceof DomainError && err.status === 422) return false;
          throw err;
        },
      );
  };
}

type As = <S extends RouteShorthandOptions['schema']>(
  method: string,
  url: string,
  role: StaffRole,
  schema: S,
) => RouteShorthandOptions;

/** The console's passkey routes, listed in the role matrix like every staff route (`as`). */
export async function staffPasskeyRoutes(
  fastify: FastifyInstance,
  o: {
    deps: StaffPasskeysDeps;
    as: As;
    actor: (request: FastifyRequest) => StaffSession;
    /** The audit row of a change (the staff service's consolePasskeyChanged). */
    audited: (actor: StaffSession, change: PasskeyChange) => Promise<unknown>;
    /** The console's XSRF key cookie of the request (present: the XSRF check of a POST needed it). */
    xsrfKeyOf: (request: FastifyRequest) => string;
  },
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { deps, as, actor } = o;
  const tags = ['staff'];

  // No session yet: a challenge for the sign-in's second step, counted per address.
  app.post(
    STAFF_PASSKEY_PATHS.signInOptions,
    { schema: { tags, body: passkeyOptionsBody, response: { 200: envelope(passkeyOptions) } } },
    async (request) => {
      await spend(deps.limiter, PASSKEY_OPTIONS_PER_IP, request.ip);
      return {
        data: await deps.passkeys.assertionOptions(
          'staff-sign-in',
          signInBinding(o.xsrfKeyOf(request)),
          deps.rpOf(request),
        ),
      };
    },
  );

  app.get(
    STAFF_PASSKEY_PATHS.list,
    as('GET', STAFF_PASSKEY_PATHS.list, 'support', { response: { 200: envelope(passkeyList) } }),
    async (request) => ({ data: { items: await deps.passkeys.list(actor(request).userId) } }),
  );

  app.post(
    STAFF_PASSKEY_PATHS.registerOptions,
    as('POST', STAFF_PASSKEY_PATHS.registerOptions, 'support', {
      body: passkeyRegisterOptionsBody,
      response: { 200: envelope(passkeyOptions) },
    }),
    async (request) => {
      const s = actor(request);
      const user = await deps.users.reload(s.userId);
      await deps.passkeys.checkPassword(user, reauthKey(s), (request.body as { password: string }).password);
      return { data: await deps.passkeys.registrationOptions(user, sessionBinding(s), deps.rpOf(request)) };
    },
  );

  app.post(
    STAFF_PASSKEY_PATHS.registerVerify,
    as('POST', STAFF_PASSKEY_PATHS.registerVerify, 'support', {
      body: passkeyRegisterVerifyBody,
      response: { 200: envelope(passkey) },
    }),
    async (request) => {
      const s = actor(request);
      const body = request.body as { response: Parameters<PasskeysService['register']>[3]; name?: string };
      const added = await deps.passkeys.register(
        s.userId,
        sessionBinding(s),
        deps.rpOf(request),
        body.response,
        body.name,
      );
      await o.audited(s, { added: true, name: added.name });
      deps.security?.passkeyChanged(await deps.users.reload(s.userId), true, added.name, deps.contextOf(request));
      return { data: added };
    },
  );

  app.post(
    STAFF_PASSKEY_PATHS.remove,
    as('POST', STAFF_PASSKEY_PATHS.remove, 'support', {
      body: passkeyRemoveBody,
      response: { 200: envelope(staffOk) },
    }),
    async (request) => {
      const s = actor(request);
      const body = request.body as { id: number; password: string };
      const user = await deps.users.reload(s.userId);
      await deps.passkeys.checkPassword(user, reauthKey(s), body.password);
      const name = await deps.passkeys.remove(s.userId, body.id);
      await o.audited(s, { added: false, name });
      deps.security?.passkeyChanged(user, false, name, deps.contextOf(request));
      return { data: { ok: true as const } };
    },
  );
}
