import { useMutation, useQueryClient } from '@tanstack/react-query';
import { PASSKEY_PATHS } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { passkeyPath, passkeysQuery } from './passkeys';

/** POST profile/passkeys/rename {id, name}. Silent: the form shows the field's message. */
export async function renamePasskey(body: { id: number; name: string }): Promise<void> {
  await api.post(passkeyPath(PASSKEY_PATHS.rename), { json: body, context: { silent: true } });
}

export function useRenamePasskey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: renamePasskey,
    onSettled: () => qc.invalidateQueries({ queryKey: passkeysQuery.queryKey }),
  });
}
