import type { FastifyError, FastifyInstance } from 'fastify';
import { isDatabaseUnavailable } from '../db/client.js';
import { DatabaseUnavailableError, DomainError, type FieldErrors } from '../lib/errors.js';

export { fieldErrorsOf } from '../lib/errors.js';

/** Thrown by the validator compiler: carries field messages for the 422 body. */
export class RequestValidationError extends Error {
  readonly statusCode = 422;
  constructor(readonly fieldErrors: FieldErrors) {
    super(Object.values(fieldErrors)[0]?.[0] ?? 'The given data was invalid.');
  }
}

const XSRF_MESSAGE = 'The page has expired. Please refresh and try again.';

/** Fastify's and plugins' own client errors by code: a Map, so a code like `__proto__` finds nothing. */
const CLIENT_ERRORS = new Map<string, { status: number; message: string }>(
  Object.entries({
    FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: 'The request body is too large.' },
    FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, message: 'Unsupported content type.' },
    FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, message: 'The request body is empty.' },
    FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, message: 'The request body is not valid JSON.' },
    FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, message: 'Invalid content length.' },
    FST_ERR_BAD_URL: { status: 400, message: 'Malformed URL.' },
    FST_ERR_ASYNC_CONSTRAINT: { status: 400, message: 'Bad request.' },
    // @fastify/csrf-protection (plugins/xsrf.ts) says 403; the contract's XSRF mismatch is 419.
    FST_CSRF_INVALID_TOKEN: { status: 419, message: XSRF_MESSAGE },
    FST_CSRF_MISSING_SECRET: { status: 419, message: XSRF_MESSAGE },
  }),
);

/** Maps every error to the one `{ message, errors? }` shape; a 5xx never says what went wrong inside. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((thrown: FastifyError, request, reply) => {
    // The database went away under a query that did not go through db/client.ts (pg-boss's own pool): the same 503.
    const err =
      !(thrown instanceof DomainError) && isDatabaseUnavailable(thrown)
        ? (new DatabaseUnavailableError({ cause: thrown }) as unknown as FastifyError)
        : thrown;
    if (err instanceof DatabaseUnavailableError) request.log.warn({ err: err.cause }, 'database unavailable');
    if (err instanceof DomainError) {
      if (err.headers) reply.headers(err.headers);
      return reply.status(err.status).send({ message: err.message, ...(err.errors ? { errors: err.errors } : {}) });
    }
    if (err instanceof RequestValidationError) {
      return reply.status(422).send({ message: err.message, errors: err.fieldErrors });
    }
    const known = err.code ? CLIENT_ERRORS.get(err.code) : undefined;
    if (known) return reply.status(known.status).send({ message: known.message });
    if (err instanceof SyntaxError || (err.statusCode && err.statusCode >= 400 && err.statusCode < 500)) {
      const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 400;
      return reply.status(status).send({ message: status === 429 ? 'Too many requests.' : 'Bad request.' });
    }
    request.log.error({ err }, 'unhandled error');
    return reply.status(500).send({ message: 'Server error.' });
  });
}
