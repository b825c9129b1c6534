import { useMutation } from '@tanstack/react-query';
import { isAuthResultShape, type AuthResult, type LoginBody } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { ensureShape } from '../../../lib/answer-shape';
import { restrictedPost, usesRestrictedCalls } from '../../../lib/restricted-call';

/** POST users/login (restrictedLogin on restricted hosts): the checkout's inline sign-in. Silent. */
export async function checkoutLogin(body: LoginBody): Promise<AuthResult> {
  if (usesRestrictedCalls()) {
    const res = await restrictedPost<{ data: unknown }>('users/restrictedLogin', body, { silent: true });
    return ensureShape(res.data, isAuthResultShape, 'users/login');
  }
  const res = await api.post('users/login', { json: body, context: { silent: true } }).json<{ data: unknown }>();
  return ensureShape(res.data, isAuthResultShape, 'users/login');
}

export function useCheckoutLogin() {
  return useMutation({ mutationKey: ['users', 'login', 'checkout'], mutationFn: checkoutLogin });
}
