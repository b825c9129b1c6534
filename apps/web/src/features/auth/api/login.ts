import { useMutation } from '@tanstack/react-query';
import { login } from '../../../lib/account-api';

/** The sign-in page's POST users/login (the fetcher is shared with the checkout: lib/account-api). */
export function useLogin() {
  return useMutation({ mutationKey: ['users', 'login'], mutationFn: login });
}
