import { useMutation } from '@tanstack/react-query';
import { isAuthResultShape, type AuthResult, type RegisterBody } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { ensureShape } from '../../../lib/answer-shape';
import { restrictedPost, usesRestrictedCalls } from '../../../lib/restricted-call';

/** POST users/register (or restrictedRegister). Silent: sign-up failures get their own 2 s snackbar. */
export async function register(body: RegisterBody): Promise<AuthResult> {
  if (usesRestrictedCalls()) {
    const res = await restrictedPost<{ data: unknown }>('users/restrictedRegister', { ...body, isRestrictedDomain: true }, { silent: true });
    return ensureShape(res.data, isAuthResultShape, 'users/register');
  }
  const res = await api.post('users/register', { json: body, context: { silent: true } }).json<{ data: unknown }>();
  return ensureShape(res.data, isAuthResultShape, 'users/register');
}

export function useRegister() {
  return useMutation({ mutationKey: ['users', 'register'], mutationFn: register });
}
