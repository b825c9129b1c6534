import { useMutation } from '@tanstack/react-query';
import { isAuthResultShape, type AuthResult, type RegisterBody } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { ensureShape } from '../../../lib/answer-shape';
import { restrictedPost, usesRestrictedCalls } from '../../../lib/restricted-call';

/**
 * POST users/register with isOneStepPayment (restrictedRegister on restricted hosts): the
 * checkout's account step. Silent: the checkout shows "already taken" as a sign-in prompt.
 */
export async function registerOneStep(body: RegisterBody): Promise<AuthResult> {
  const payload = { ...body, isOneStepPayment: true };
  if (usesRestrictedCalls()) {
    const res = await restrictedPost<{ data: unknown }>('users/restrictedRegister', { ...payload, isRestrictedDomain: true }, { silent: true });
    return ensureShape(res.data, isAuthResultShape, 'users/register');
  }
  const res = await api.post('users/register', { json: payload, context: { silent: true } }).json<{ data: unknown }>();
  return ensureShape(res.data, isAuthResultShape, 'users/register');
}

export function useRegisterOneStep() {
  return useMutation({ mutationKey: ['users', 'register', 'oneStep'], mutationFn: registerOneStep });
}

/** The API's answer for an email that has an account already. */
export function isEmailTaken(errors: Record<string, string[]> | undefined): boolean {
  return !!errors?.email?.some((m) => /already been taken/i.test(m));
}
