import { useMutation, useQueryClient } from '@tanstack/react-query';
import { envelope, staffJob, type StaffJob } from '@warren/contract';
import { STAFF_KEY, staffApi } from './client';
import { jobsQuery } from './get-jobs';

/** POST staff/jobs/:queue/:id/retry (admin): runs a failed job again. */
export async function retryJob({ queue, id }: { queue: string; id: string }): Promise<StaffJob> {
  return envelope(staffJob).parse(
    await staffApi.post(`jobs/${encodeURIComponent(queue)}/${encodeURIComponent(id)}/retry`, { json: {} }).json(),
  ).data;
}

export function useRetryJob() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: retryJob,
    onSettled: () =>
      Promise.all([
        qc.invalidateQueries({ queryKey: jobsQuery.queryKey }),
        qc.invalidateQueries({ queryKey: [STAFF_KEY, 'audit'] }),
      ]),
  });
}
