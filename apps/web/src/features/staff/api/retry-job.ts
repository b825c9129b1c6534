import { useMutation, useQueryClient } from '@tanstack/react-query';
import { STAFF_KEY, staffApi } from './client';
import { jobsQuery } from './get-jobs';

/** POST staff/jobs/:id/retry: runs a failed job again. */
export async function retryJob({ id }: { id: number }): Promise<void> {
  await staffApi.post(`jobs/${id}/retry`, { json: {} });
}

export function useRetryJob() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: retryJob,
    onSettled: () => Promise.all([qc.invalidateQueries({ queryKey: jobsQuery.queryKey }), qc.invalidateQueries({ queryKey: [STAFF_KEY, 'audit'] })]),
  });
}
