import { useMutation } from '@tanstack/react-query';
import { login } from '../../../lib/account-api';

/** The checkout's inline sign-in: POST users/login (the fetcher is shared with the sign-in page: lib/account-api). */
export function useCheckoutLogin() {
  return useMutation({ mutationKey: ['users', 'login', 'checkout'], mutationFn: login });
}
