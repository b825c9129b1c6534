import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  PASSKEY_PATHS,
  authResult,
  envelope,
  okMessage,
  passkey,
  passkeyList,
  passkeyOptions,
  passkeyOptionsBody,
  passkeyRegisterOptionsBody,
  passkeyRegisterVerifyBody,
  passkeyRemoveBody,
  passkeyRenameBody,
  passkeySignInBody,
} from '@warren/contract';
import { userOf } from '../../plugins/auth.js';
import { mainProductOnly } from '../../plugins/restricted.js';
import type { RequestContext } from '../users/index.js';
import type { CustomerPasskeys } from './customer.js';

const ok = (message: string) => ({ data: { ok: true as const }, message });

/** The customer's passkey calls (contract: packages/contract/src/passkeys.ts). */
export async function passkeyRoutes(
  fastify: FastifyInstance,
  {
    passkeys,
    auth,
    context,
  }: {
    passkeys: CustomerPasskeys;
    auth: (r: FastifyRequest, s: FastifyReply) => Promise<void>;
    /** The request's brand and origin (plugins/context.ts): the relying party of every ceremony. */
    context: (r: FastifyRequest) => RequestContext;
  },
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['passkeys'];
  const token = (request: FastifyRequest) => request.currentToken!;
  const signedIn = { preValidation: mainProductOnly, preHandler: auth };

  app.get(
    PASSKEY_PATHS.list,
    { ...signedIn, schema: { tags, response: { 200: envelope(passkeyList) } } },
    async (request) => ({
      data: { items: await passkeys.list(userOf(request)) },
    }),
  );

  app.post(
    PASSKEY_PATHS.registerOptions,
    { ...signedIn, schema: { tags, body: passkeyRegisterOptionsBody, response: { 200: envelope(passkeyOptions) } } },
    async (request) => ({
      data: await passkeys.registrationOptions(
        userOf(request),
        token(request),
        request.body.password,
        context(request),
      ),
    }),
  );

  app.post(
    PASSKEY_PATHS.registerVerify,
    { ...signedIn, schema: { tags, body: passkeyRegisterVerifyBody, response: { 200: envelope(passkey) } } },
    async (request) => ({
      data: await passkeys.register(userOf(request), token(request), request.body, context(request)),
    }),
  );

  app.post(
    PASSKEY_PATHS.rename,
    { ...signedIn, schema: { tags, body: passkeyRenameBody, response: { 200: okMessage } } },
    async (request) => {
      await passkeys.rename(userOf(request), request.body.id, request.body.name);
      return ok('Passkey renamed.');
    },
  );

  app.post(
    PASSKEY_PATHS.remove,
    { ...signedIn, schema: { tags, body: passkeyRemoveBody, response: { 200: okMessage } } },
    async (request) => {
      await passkeys.remove(userOf(request), token(request), request.body.id, request.body.password, context(request));
      return ok('Passkey removed.');
    },
  );

  app.post(
    PASSKEY_PATHS.signInOptions,
    {
      preValidation: mainProductOnly,
      schema: { tags, body: passkeyOptionsBody, response: { 200: envelope(passkeyOptions) } },
    },
    async (request) => ({ data: await passkeys.signInOptions(context(request)) }),
  );

  app.post(
    PASSKEY_PATHS.signIn,
    {
      preValidation: mainProductOnly,
      schema: { tags, body: passkeySignInBody, response: { 200: envelope(authResult) } },
    },
    async (request) => ({ data: await passkeys.signIn(request.body.response, context(request)) }),
  );
}
