/**
 * Typed domain errors. Services throw these; the error plugin maps them to HTTP in one place,
 * always with the `{ message, errors? }` body.
 */
import type { z } from 'zod';

export type FieldErrors = Record<string, string[]>;

export class DomainError extends Error {
  constructor(
    public readonly status: number,
    message: string,
    public readonly errors?: FieldErrors,
    public readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export class ValidationError extends DomainError {
  constructor(errors: FieldErrors, message = firstMessage(errors)) {
    super(422, message, errors);
  }
}

export class UnauthorizedError extends DomainError {
  constructor(message = 'Unauthenticated.') {
    super(401, message);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message = 'This action is unauthorized.') {
    super(403, message);
  }
}

export class NotFoundError extends DomainError {
  constructor(message = 'Not found.') {
    super(404, message);
  }
}

export class ConflictError extends DomainError {
  constructor(message: string, errors?: FieldErrors) {
    super(409, message, errors);
  }
}

export class BadRequestError extends DomainError {
  constructor(message: string) {
    super(400, message);
  }
}

export class TooManyRequestsError extends DomainError {
  constructor(retryAfterSeconds: number) {
    super(429, 'Too many attempts. Please try again later.', undefined, {
      'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))),
    });
  }
}

/**
 * The database cannot be reached for now (a restart, a failover, too many connections): nothing was
 * done that the client must worry about, and the same request may be sent again after Retry-After.
 */
export class DatabaseUnavailableError extends DomainError {
  static readonly RETRY_AFTER_S = 5;
  constructor(options?: { cause?: unknown }) {
    super(503, 'The service is briefly unavailable. Please try again in a few seconds.', undefined, {
      'retry-after': String(DatabaseUnavailableError.RETRY_AFTER_S),
    });
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

function firstMessage(errors: FieldErrors): string {
  for (const messages of Object.values(errors)) if (messages[0]) return messages[0];
  return 'The given data was invalid.';
}

/** A zod error's messages by field path (`_` for the whole value). */
export function fieldErrorsOf(err: z.ZodError): FieldErrors {
  // A Map: field paths can carry the sender's keys (a record's keys), and `constructor` or
  // `__proto__` must be a field name like any other, not a lookup on Object.prototype.
  const out = new Map<string, string[]>();
  for (const issue of err.issues) {
    const key = issue.path.length ? issue.path.map(String).join('.') : '_';
    const messages = out.get(key) ?? [];
    messages.push(issue.message);
    out.set(key, messages);
  }
  return Object.fromEntries(out);
}

/** Parses a service's input with its schema: a ValidationError (422) with each field's messages when it does not fit. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new ValidationError(fieldErrorsOf(parsed.error));
  return parsed.data;
}
