import { useMutation } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** POST users/annihilation {password}: deletes the account; answers the text "Account deleted". */
export async function deleteAccount(body: { password: string }): Promise<string> {
  return api.post('users/annihilation', { json: body, context: { silent: true } }).text();
}

export function useDeleteAccount() {
  return useMutation({ mutationFn: deleteAccount });
}
