import type { FieldValues, Path, UseFormSetError } from 'react-hook-form';
import type { ErrorBody } from '@warren/contract';

/** Puts a 422's field messages under the form's fields; returns the fields it could not place. */
export function applyFieldErrors<T extends FieldValues>(
  body: ErrorBody | null,
  setError: UseFormSetError<T>,
  fields: readonly Path<T>[],
): string[] {
  const rest: string[] = [];
  for (const [field, messages] of Object.entries(body?.errors ?? {})) {
    const text = messages.join(' ');
    if ((fields as readonly string[]).includes(field)) setError(field as Path<T>, { type: 'server', message: text });
    else rest.push(text);
  }
  return rest;
}
