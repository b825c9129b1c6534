import { useMutation, useQueryClient } from '@tanstack/react-query';
import { staffApi } from './client';
import { staffPasskeysQuery } from './passkeys';

/** POST staff/passkeys/remove {id, password}. Silent: the dialog shows errors. */
export async function removeStaffPasskey(body: { id: number; password: string }): Promise<void> {
  await staffApi.post('passkeys/remove', { json: body, context: { silent: true } });
}

export function useRemoveStaffPasskey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: removeStaffPasskey,
    onSettled: () => qc.invalidateQueries({ queryKey: staffPasskeysQuery.queryKey }),
  });
}
