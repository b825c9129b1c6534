import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { sessionsQuery } from './sessions';

/** POST profile/sessions/revoke {id}: signs one other session out. */
export async function revokeSession(body: { id: number }): Promise<void> {
  await api.post('profile/sessions/revoke', { json: body });
}

export function useRevokeSession() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: revokeSession,
    onSettled: () => qc.invalidateQueries({ queryKey: sessionsQuery.queryKey }),
  });
}
