import { useMutation, useQueryClient } from '@tanstack/react-query';
import { RESTRICTED_PATHS } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { restrictedPost, usesRestrictedCalls } from '../../../lib/restricted-call';
import { profileQuery } from './get-profile';

/** POST profile/2fa/disable {password, code}: both are needed (a stolen session alone cannot turn it off). Silent: the dialog shows what is wrong. */
export async function disableTwoFactor(body: { password: string; code: string }): Promise<void> {
  if (usesRestrictedCalls()) {
    await restrictedPost(RESTRICTED_PATHS.twoFactorDisable, body, { silent: true }, { withToken: true });
    return;
  }
  await api.post('profile/2fa/disable', { json: body, context: { silent: true } });
}

export function useDisableTwoFactor() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: disableTwoFactor,
    onSuccess: () => qc.invalidateQueries({ queryKey: profileQuery.queryKey }),
  });
}
