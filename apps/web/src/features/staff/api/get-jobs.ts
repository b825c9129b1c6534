import { queryOptions, useQuery } from '@tanstack/react-query';
import { envelope, staffJobList, type StaffJob } from '@warren/contract';
import { STAFF_KEY, staffApi } from './client';

/** GET staff/jobs: background jobs that are due, running, waiting to retry or failed. */
export async function getJobs(signal?: AbortSignal): Promise<StaffJob[]> {
  return envelope(staffJobList).parse(await staffApi.get('jobs', { signal }).json()).data.items;
}

export const jobsQuery = queryOptions({
  queryKey: [STAFF_KEY, 'jobs'],
  queryFn: ({ signal }) => getJobs(signal),
  staleTime: 5_000,
});

export function useJobs() {
  return useQuery(jobsQuery);
}
