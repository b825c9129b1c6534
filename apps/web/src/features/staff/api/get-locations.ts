import { queryOptions, useQuery } from '@tanstack/react-query';
import { STAFF_KEY, staffApi } from './client';
import type { StaffLocation } from './types';

/** GET staff/locations: every location with its nodes and their live status (admin). */
export async function getLocations(signal?: AbortSignal): Promise<StaffLocation[]> {
  return (await staffApi.get('locations', { signal }).json<{ data: StaffLocation[] }>()).data;
}

export const locationsQuery = queryOptions({ queryKey: [STAFF_KEY, 'locations'], queryFn: ({ signal }) => getLocations(signal), staleTime: 5_000 });

/** Live: read again every 15 s while the page is open (agents report about that often). */
export function useLocations() {
  return useQuery({ ...locationsQuery, refetchInterval: 15_000 });
}
