import { z } from 'zod';

/** The one error shape every endpoint answers with. */
export const errorBody = z.object({
  message: z.string(),
  errors: z.record(z.string(), z.array(z.string())).optional(),
});
export type ErrorBody = z.infer<typeof errorBody>;

/** Status codes the web app's error catalogue knows about (DESIGN.md, "Errors"). */
export const HTTP = {
  badRequest: 400,
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  conflict: 409,
  payloadTooLarge: 413,
  xsrfMismatch: 419,
  validation: 422,
  locked: 423,
  tooManyRequests: 429,
} as const;

/** Wraps a payload schema in the `{ data }` envelope every success answer uses. */
export const envelope = <T extends z.ZodType>(data: T) => z.object({ data });
