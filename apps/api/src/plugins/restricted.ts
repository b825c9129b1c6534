import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { BadRequestError, ForbiddenError } from '../lib/errors.js';
import { decryptText, encryptText } from '../lib/secrets.js';
import { RequestValidationError, fieldErrorsOf } from './errors.js';
import { findUnstorableText } from './validation.js';

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
 * preHandler for the plain JSON login, register and reset-request: a restricted host speaks only
 * their encrypted variants (spec section 6), so its plain calls are refused.
 */
export async function mainProductOnly(request: FastifyRequest): Promise<void> {
  if (!request.brand.mainProduct) throw new ForbiddenError('This host accepts only the encrypted calls.');
}

export function sealAnswer(request: FastifyRequest, payload: unknown): string {
  return encryptText(request.brand.restrictedKey!, JSON.stringify(payload));
}

export const RESTRICTED_DOC =
  'Body: text/plain, base64(iv || AES-256-GCM ciphertext || tag) of the JSON payload under the brand key; plain JSON is refused with 400. The answer is encrypted the same way.';
