import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { profileQuery } from './get-profile';

/** POST profile/2fa/disable {password}. Silent: the dialog shows a wrong password. */
export async function disableTwoFactor(body: { password: string }): Promise<void> {
  await api.post('profile/2fa/disable', { json: body, context: { silent: true } });
}

export function useDisableTwoFactor() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: disableTwoFactor, onSuccess: () => qc.invalidateQueries({ queryKey: profileQuery.queryKey }) });
}
