import { RESTRICTED_PATHS, isUserShape, type User, type VerifyUserBody } from '@warren/contract';
import { ensureShape } from './answer-shape';
import { api } from './api-client';
import { verifyAttribution } from './attribution';
import { restrictedPost, usesRestrictedCalls } from './restricted-call';

/**
 * POST users/verifyUser: used by both the sign-in page and the plans page, so it lives here
 * rather than in one feature. Carries the spec's cid, clickID and cid4 (captured earlier) unless
 * the caller gives them. Silent: each page shows its own catalogue message.
 */
export async function verifyUser(body: VerifyUserBody): Promise<User> {
  const json = { ...verifyAttribution(), ...body };
  // A restricted host sends the link's token encrypted and gets the user (its email) back encrypted.
  if (usesRestrictedCalls()) {
    const res = await restrictedPost<{ data: { user: unknown } }>(RESTRICTED_PATHS.verifyUser, json, { silent: true });
    return ensureShape(res.data?.user, isUserShape, 'users/verifyUser');
  }
  const res = await api.post('users/verifyUser', { json, context: { silent: true } }).json<{ data: { user: unknown } }>();
  return ensureShape(res.data.user, isUserShape, 'users/verifyUser');
}
