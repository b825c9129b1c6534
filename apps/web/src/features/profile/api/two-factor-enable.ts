import { useMutation, useQueryClient } from '@tanstack/react-query';
import { RESTRICTED_PATHS, envelope, twoFactorEnabled } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { restrictedPost, usesRestrictedCalls } from '../../../lib/restricted-call';
import { profileQuery } from './get-profile';

/** POST profile/2fa/enable {code}: turns two-factor sign-in on; answers the ten recovery codes, once. */
export async function enableTwoFactor(body: { code: string }): Promise<string[]> {
  const res = usesRestrictedCalls()
    ? await restrictedPost(RESTRICTED_PATHS.twoFactorEnable, body, { silent: true }, { withToken: true })
    : await api.post('profile/2fa/enable', { json: body, context: { silent: true } }).json();
  return envelope(twoFactorEnabled).parse(res).data.recoveryCodes;
}

export function useEnableTwoFactor() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: enableTwoFactor,
    onSuccess: () => qc.invalidateQueries({ queryKey: profileQuery.queryKey }),
  });
}
