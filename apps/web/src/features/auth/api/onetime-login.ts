import { RESTRICTED_PATHS, isAuthResultShape, type AuthResult } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { ensureShape } from '../../../lib/answer-shape';
import { restrictedPost, usesRestrictedCalls } from '../../../lib/restricted-call';

/** POST users/onetimeLogin {userID, token} → a session (restrictedOnetimeLogin on a restricted host: the link's token and the session encrypted). */
export async function onetimeLogin(body: { userID: number; token: string }): Promise<AuthResult> {
  if (usesRestrictedCalls()) {
    const res = await restrictedPost<{ data: unknown }>(RESTRICTED_PATHS.onetimeLogin, body);
    return ensureShape(res.data, isAuthResultShape, 'users/onetimeLogin');
  }
  const res = await api.post('users/onetimeLogin', { json: body }).json<{ data: unknown }>();
  return ensureShape(res.data, isAuthResultShape, 'users/onetimeLogin');
}
