import { isErrorBodyShape, type ErrorBody } from '@warren/contract';
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
