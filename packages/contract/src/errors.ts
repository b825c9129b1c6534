import { z } from 'zod';

/** The one error shape every endpoint answers with. */
export const errorBody = z.object({
  message: z.string(),
  errors: z.record(z.string(), z.array(z.string())).optional(),
});
export type ErrorBody = z.infer<typeof errorBody>;
/** Wraps a payload schema in the `{ data }` envelope every success answer uses. */
export const envelope = <T extends z.ZodType>(data: T) => z.object({ data });
