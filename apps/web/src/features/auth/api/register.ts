import { useMutation } from '@tanstack/react-query';
import { authResult, type AuthResult, type RegisterBody } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { restrictedPost, usesRestrictedCalls } from './restricted';

/** POST users/register (or restrictedRegister). Silent: sign-up failures get their own 2 s snackbar. */
export async function register(body: RegisterBody): Promise<AuthResult> {
  if (usesRestrictedCalls()) {
    const res = await restrictedPost<{ data: unknown }>('users/restrictedRegister', { ...body, isRestrictedDomain: true }, { silent: true });
    return authResult.parse(res.data);
  }
  const res = await api.post('users/register', { json: body, context: { silent: true } }).json<{ data: unknown }>();
  return authResult.parse(res.data);
}

export function useRegister() {
  return useMutation({ mutationKey: ['users', 'register'], mutationFn: register });
}
