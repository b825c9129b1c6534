import { isAuthResultShape, type AuthResult } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { ensureShape } from '../../../lib/answer-shape';

/** POST users/onetimeLogin {userID, token} → a session. */
export async function onetimeLogin(body: { userID: number; token: string }): Promise<AuthResult> {
  const res = await api.post('users/onetimeLogin', { json: body }).json<{ data: unknown }>();
  return ensureShape(res.data, isAuthResultShape, 'users/onetimeLogin');
}
