import { useMutation, useQueryClient } from '@tanstack/react-query';
import { RESTRICTED_PATHS, type StealthOverview, envelope, stealthOverview } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { restrictedPost, usesRestrictedCalls } from '../../../lib/restricted-call';

/** POST setup/stealth/reset: new credentials and a new subscription URL; the old ones stop working on every server. */
export async function resetStealth(langCode: string): Promise<StealthOverview> {
  const body = usesRestrictedCalls()
    ? await restrictedPost(RESTRICTED_PATHS.resetStealth, { langCode }, {}, { withToken: true })
    : await api.post('setup/stealth/reset', { searchParams: { langCode } }).json();
  return envelope(stealthOverview).parse(body).data;
}

export function useResetStealth(langCode: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => resetStealth(langCode),
    onSettled: () => qc.invalidateQueries({ queryKey: ['setup', 'stealth'] }),
  });
}
