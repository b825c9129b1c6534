import { useMutation } from '@tanstack/react-query';
import type { RegisterBody } from '@warren/contract';
import { register } from '../../../lib/account-api';

/** The sign-up page's POST users/register (the fetcher is shared with the checkout: lib/account-api). */
export function useRegister() {
  return useMutation({ mutationKey: ['users', 'register'], mutationFn: (body: RegisterBody) => register(body) });
}
