import { useMutation, useQueryClient } from '@tanstack/react-query';
import { PASSKEY_PATHS } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { passkeyPath, passkeysQuery } from './passkeys';

/** POST profile/passkeys/remove {id, password}: the password again, as for turning two-factor off. Silent: the dialog shows errors. */
export async function removePasskey(body: { id: number; password: string }): Promise<void> {
  await api.post(passkeyPath(PASSKEY_PATHS.remove), { json: body, context: { silent: true } });
}

export function useRemovePasskey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: removePasskey,
    onSettled: () => qc.invalidateQueries({ queryKey: passkeysQuery.queryKey }),
  });
}
