import { useMutation, useQueryClient } from '@tanstack/react-query';
import { STAFF_KEY } from './client';
import { locationsQuery } from './get-locations';

/** A change to locations or nodes: the table is read again after it, done or refused. */
export function useLocationsMutation<V, R>(call: (vars: V) => Promise<R>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: call,
    // Node tokens come in these answers: the cache forgets them as soon as the dialog lets go.
    gcTime: 0,
    onSettled: () =>
      Promise.all([
        qc.invalidateQueries({ queryKey: locationsQuery.queryKey }),
        qc.invalidateQueries({ queryKey: [STAFF_KEY, 'audit'] }),
      ]),
  });
}
