import { useMutation } from '@tanstack/react-query';
import type { RegisterBody } from '@warren/contract';
import { register } from '../../../lib/account-api';

/**
 * The checkout's account step: POST users/register with isOneStepPayment (the fetcher is shared
 * with the sign-up page: lib/account-api).
 */
export function useRegisterOneStep() {
  return useMutation({
    mutationKey: ['users', 'register', 'oneStep'],
    mutationFn: (body: RegisterBody) => register(body, { oneStep: true }),
  });
}

/** The API's answer for an email that has an account already. */
export function isEmailTaken(errors: Record<string, string[]> | undefined): boolean {
  return !!errors?.email?.some((m) => /already been taken/i.test(m));
}
