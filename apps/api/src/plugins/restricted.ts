import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { BadRequestError, ForbiddenError, UnauthorizedError } from '../lib/errors.js';
import { decryptText, encryptText } from '../lib/secrets.js';
import { RequestValidationError, fieldErrorsOf } from './errors.js';
import { findUnstorableText } from './validation.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Run by the envelope (plugins/restricted-envelope.ts) for an encrypted call on this host, not sent by a client directly. */
    viaEnvelope: boolean;
  }
  interface FastifyContextConfig {
    /** A restricted call (its body is encrypted text): never reached through the envelope. */
    restrictedCall?: boolean;
  }
}

/**
 * Restricted calls: the body is encrypted text under the brand's key; plain JSON, or anything
 * that does not decrypt, is a 400. Decrypted payloads are validated like any other body.
 */
export function decryptBody<T extends z.ZodType>(request: FastifyRequest, schema: T): z.infer<T> {
  const key = request.brand.restrictedKey;
  if (!key) throw new BadRequestError('Restricted calls are not available on this host.');
  if (typeof request.body !== 'string') throw new BadRequestError('The request body must be encrypted text.');
  const plain = decryptText(key, request.body);
  if (plain === null) throw new BadRequestError('The request body could not be decrypted.');
  let json: unknown;
  try {
    json = JSON.parse(plain);
  } catch {
    throw new BadRequestError('The decrypted body is not valid JSON.');
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new RequestValidationError(fieldErrorsOf(parsed.error));
  const bad = findUnstorableText(parsed.data);
  if (bad) throw new RequestValidationError({ [bad]: ['This field contains characters that are not allowed.'] });
  return parsed.data;
}

/**
 * preValidation hook of every plain call that carries an email, a password, a session or link
 * token, a code or a payment (or answers an email or a secret): a restricted host speaks only
 * their encrypted variants (README: Restricted hosts), so its plain calls are refused, before
 * their body is validated or their bearer header read. The same call inside the encrypted
 * envelope (plugins/restricted-envelope.ts) is encrypted on the wire and goes on.
 */
export async function mainProductOnly(request: FastifyRequest): Promise<void> {
  if (!request.brand.mainProduct && !request.viaEnvelope) throw new ForbiddenError(ENCRYPTED_ONLY);
}

export const ENCRYPTED_ONLY = 'This host accepts only the encrypted calls.';

export function sealAnswer(request: FastifyRequest, payload: unknown): string {
  return encryptText(request.brand.restrictedKey!, JSON.stringify(payload));
}

type Auth = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * Signs a restricted call in with the session token from its encrypted body, through the same
 * `auth` as the plain calls. A rotated token must not come back in the clear Authorization
 * header that `auth` sets: it is taken off the reply and returned, for the sealed answer.
 */
export async function signInFromBody(
  request: FastifyRequest,
  reply: FastifyReply,
  auth: Auth,
  token: unknown,
): Promise<string | undefined> {
  if (typeof token !== 'string' || !token) throw new UnauthorizedError();
  request.headers.authorization = `Bearer ${token}`;
  await auth(request, reply);
  const header = reply.getHeader('authorization');
  reply.removeHeader('authorization');
  return typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header)?.[1] : undefined;
}

export const encrypted = z
  .string()
  .describe('base64(iv || AES-256-GCM ciphertext || tag) of the JSON payload, key per brand');

/**
 * One restricted call: decrypts and validates the body, signs in with the token inside it when
 * `auth` is given (a rotated token goes back inside the answer as `rotatedToken`), and answers
 * the handler's result sealed under the brand key. Errors stay plain JSON error bodies (field
 * names and messages only, never the data sent).
 */
export function restrictedRoute<S extends z.ZodType>(
  app: FastifyInstance,
  path: string,
  options: {
    body: S;
    tags: string[];
    auth?: Auth;
    status?: number;
    /** The body field holding the session token (default `token`). */ sessionField?: string;
  },
  handler: (request: FastifyRequest, body: z.infer<S>, reply: FastifyReply) => Promise<Record<string, unknown>>,
): void {
  const status = options.status ?? 200;
  app.post(
    path,
    {
      config: { restrictedCall: true },
      schema: { tags: options.tags, description: RESTRICTED_DOC, response: { [status]: encrypted } },
    },
    async (request, reply) => {
      const body = decryptBody(request, options.body);
      const rotated = options.auth
        ? await signInFromBody(
            request,
            reply,
            options.auth,
            (body as Record<string, unknown>)[options.sessionField ?? 'token'],
          )
        : undefined;
      const answer = await handler(request, body, reply);
      return reply
        .status(status)
        .type('text/plain; charset=utf-8')
        .send(sealAnswer(request, rotated ? { ...answer, rotatedToken: rotated } : answer));
    },
  );
}

export const RESTRICTED_DOC =
  'Body: text/plain, base64(iv || AES-256-GCM ciphertext || tag) of the JSON payload under the brand key; plain JSON is refused with 400. The answer is encrypted the same way.';
