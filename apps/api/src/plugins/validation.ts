import type { FastifySchemaCompiler } from 'fastify';
import type { ZodType } from 'zod';
import { RequestValidationError, fieldErrorsOf } from './errors.js';

/** Validates every request part with its zod schema; failures become 422 with field messages. */
export const zodValidatorCompiler: FastifySchemaCompiler<ZodType> =
  ({ schema }) =>
  (data) => {
    const result = schema.safeParse(data);
    return result.success ? { value: result.data } : { error: new RequestValidationError(fieldErrorsOf(result.error)) };
  };
