import { queryOptions, useQuery } from '@tanstack/react-query';
import { STAFF_KEY, staffApi } from './client';
import type { StaffJob } from './types';

/** GET staff/jobs: the jobs that are due and those that failed (admin). */
export async function getJobs(signal?: AbortSignal): Promise<StaffJob[]> {
  return (await staffApi.get('jobs', { signal }).json<{ data: StaffJob[] }>()).data;
}

export const jobsQuery = queryOptions({ queryKey: [STAFF_KEY, 'jobs'], queryFn: ({ signal }) => getJobs(signal), staleTime: 5_000 });

export function useJobs() {
  return useQuery(jobsQuery);
}
