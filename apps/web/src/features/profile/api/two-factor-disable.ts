import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { profileQuery } from './get-profile';

/** POST profile/2fa/disable {password, code}: both are needed (a stolen session alone cannot turn it off). Silent: the dialog shows what is wrong. */
export async function disableTwoFactor(body: { password: string; code: string }): Promise<void> {
  await api.post('profile/2fa/disable', { json: body, context: { silent: true } });
}

export function useDisableTwoFactor() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: disableTwoFactor, onSuccess: () => qc.invalidateQueries({ queryKey: profileQuery.queryKey }) });
}
