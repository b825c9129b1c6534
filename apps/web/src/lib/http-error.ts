import { isErrorBodyShape, type ErrorBody } from '@warren/contract';
import i18next from 'i18next';
import { HTTPError } from 'ky';

/** ky's HTTPError with the parsed `{ message, errors }` body attached by the api client. */
export type ApiError = HTTPError & { body?: ErrorBody };

export function isApiError(err: unknown): err is ApiError {
  return err instanceof HTTPError;
}

export function errorStatus(err: unknown): number | null {
  return isApiError(err) ? err.response.status : null;
}

export function errorBodyOf(err: unknown): ErrorBody | null {
  return isApiError(err) && err.body ? err.body : null;
}

export function parseErrorBody(value: unknown): ErrorBody | null {
  return isErrorBodyShape(value) ? value : null;
}

/** Field messages joined, else the message (spec section 8). */
export function errorText(body: ErrorBody | null | undefined, fallback: string): string {
  if (!body) return fallback;
  const fields = body.errors ? Object.values(body.errors).flat().filter(Boolean) : [];
  if (fields.length) return fields.join(' ');
  return body.message || fallback;
}

export function capitalizeFirst(text: string): string {
  return text ? text.charAt(0).toUpperCase() + text.slice(1) : text;
}

/**
 * What a server error says to the customer, in their language. The API's messages are English (the
 * spec's message texts), and a 5xx's text is ours, not the customer's doing: "briefly unavailable"
 * for a 503 (the database restarting, a provider down, an instance draining: try again soon),
 * "something went wrong" for the rest. Null below 500: those messages are the contract's.
 */
export function serverErrorText(status: number): string | null {
  if (status < 500) return null;
  return i18next.t(status === 503 ? 'notify.unavailable' : 'notify.serverError');
}
