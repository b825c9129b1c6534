import { queryOptions, useQuery } from '@tanstack/react-query';
import { envelope, featureList, type Feature } from '@warren/contract';
import { api } from '../../../lib/api-client';

/** GET setup/features/get: the user's VPN features (the ad blocker) with their state. */
export async function getFeatures(): Promise<Feature[]> {
  const body = await api.get('setup/features/get').json();
  return envelope(featureList).parse(body).data.items;
}

export const featuresQuery = queryOptions({ queryKey: ['setup', 'features'], queryFn: getFeatures, staleTime: 60_000 });

export function useFeatures() {
  return useQuery(featuresQuery);
}
