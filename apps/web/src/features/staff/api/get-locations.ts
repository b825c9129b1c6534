import { queryOptions, useQuery } from '@tanstack/react-query';
import { envelope, staffLocationList, type StaffLocation } from '@warren/contract';
import { STAFF_KEY, staffApi } from './client';

/** GET staff/locations: every location with its nodes and their live status. */
export async function getLocations(signal?: AbortSignal): Promise<StaffLocation[]> {
  return envelope(staffLocationList).parse(await staffApi.get('locations', { signal }).json()).data.items;
}

export const locationsQuery = queryOptions({
  queryKey: [STAFF_KEY, 'locations'],
  queryFn: ({ signal }) => getLocations(signal),
  staleTime: 5_000,
});

/** Live: read again every 15 s while the page is open (agents report about that often). */
export function useLocations() {
  return useQuery({ ...locationsQuery, refetchInterval: 15_000 });
}
