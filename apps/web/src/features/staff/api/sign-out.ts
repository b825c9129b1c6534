import { useMutation, useQueryClient } from '@tanstack/react-query';
import { STAFF_KEY, staffApi } from './client';

/** DELETE staff/session: ends the console session (the cookie goes with it). */
export async function signOut(): Promise<void> {
  await staffApi.delete('session', { context: { skipAuthHandling: true, silent: true } });
}

export function useSignOut() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: signOut, onSettled: () => qc.removeQueries({ queryKey: [STAFF_KEY] }) });
}
