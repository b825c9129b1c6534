import { isUserShape, type User, type VerifyUserBody } from '@warren/contract';
import { ensureShape } from './answer-shape';
import { api } from './api-client';
import { verifyAttribution } from './attribution';

/**
 * POST users/verifyUser: used by both the sign-in page and the plans page, so it lives here
 * rather than in one feature. Carries the spec's cid, clickID and cid4 (captured earlier) unless
 * the caller gives them. Silent: each page shows its own catalogue message.
 */
export async function verifyUser(body: VerifyUserBody): Promise<User> {
  const json = { ...verifyAttribution(), ...body };
  const res = await api.post('users/verifyUser', { json, context: { silent: true } }).json<{ data: { user: unknown } }>();
  return ensureShape(res.data.user, isUserShape, 'users/verifyUser');
}
