import { isUserShape, type User, type VerifyUserBody } from '@warren/contract';
import { ensureShape } from './answer-shape';
import { api } from './api-client';

/**
 * POST users/verifyUser: used by both the sign-in page and the plans page, so it lives here
 * rather than in one feature. Silent: each page shows its own catalogue message.
 */
export async function verifyUser(body: VerifyUserBody): Promise<User> {
  const res = await api.post('users/verifyUser', { json: body, context: { silent: true } }).json<{ data: { user: unknown } }>();
  return ensureShape(res.data.user, isUserShape, 'users/verifyUser');
}
