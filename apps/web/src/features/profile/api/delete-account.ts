import { useMutation } from '@tanstack/react-query';
import { RESTRICTED_PATHS } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { restrictedPost, usesRestrictedCalls } from '../../../lib/restricted-call';

/** POST users/annihilation {password} (restrictedAnnihilation on a restricted host): deletes the account; answers "Account deleted". */
export async function deleteAccount(body: { password: string }): Promise<string> {
  if (usesRestrictedCalls()) {
    return (
      await restrictedPost<{ message: string }>(
        RESTRICTED_PATHS.annihilation,
        body,
        { silent: true },
        { withToken: true },
      )
    ).message;
  }
  return api.post('users/annihilation', { json: body, context: { silent: true } }).text();
}

export function useDeleteAccount() {
  return useMutation({ mutationFn: deleteAccount });
}
