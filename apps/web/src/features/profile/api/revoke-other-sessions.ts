import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { sessionsQuery } from './sessions';

/** POST profile/sessions/revokeOthers: every session but this one is signed out. */
export async function revokeOtherSessions(): Promise<void> {
  await api.post('profile/sessions/revokeOthers');
}

export function useRevokeOtherSessions() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: revokeOtherSessions,
    onSettled: () => qc.invalidateQueries({ queryKey: sessionsQuery.queryKey }),
  });
}
