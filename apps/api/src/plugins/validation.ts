import type { FastifySchemaCompiler } from 'fastify';
import type { ZodType } from 'zod';
import { RequestValidationError, fieldErrorsOf } from './errors.js';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * PostgreSQL text cannot hold NUL, and jsonb refuses a lone surrogate: such strings are bad
 * input (422), never something to hand to the database. Returns the path of the first one.
 */
export function findUnstorableText(value: unknown, path: string[] = [], depth = 0): string | undefined {
  if (typeof value === 'string')
    return value.includes('\u0000') || LONE_SURROGATE.test(value) ? path.join('.') || '_' : undefined;
  if (depth > 32 || value === null || typeof value !== 'object') return undefined;
  for (const [k, v] of Object.entries(value)) {
    const found = findUnstorableText(v, [...path, k], depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** Validates every request part with its zod schema; failures become 422 with field messages. */
export const zodValidatorCompiler: FastifySchemaCompiler<ZodType> =
  ({ schema }) =>
  (data) => {
    const result = schema.safeParse(data);
    if (!result.success) return { error: new RequestValidationError(fieldErrorsOf(result.error)) };
    const bad = findUnstorableText(result.data);
    return bad
      ? { error: new RequestValidationError({ [bad]: ['This field contains characters that are not allowed.'] }) }
      : { value: result.data };
  };
