import { queryOptions, useQuery } from '@tanstack/react-query';
import { isFeatureListAnswer, type Feature } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { ensureShape } from '../../../lib/answer-shape';

/** GET setup/features/get: the user's VPN features (the ad blocker) with their state. */
export async function getFeatures(): Promise<Feature[]> {
  const body = await api.get('setup/features/get').json();
  return ensureShape(body, isFeatureListAnswer, 'setup/features/get').data.items;
}

export const featuresQuery = queryOptions({ queryKey: ['setup', 'features'], queryFn: getFeatures, staleTime: 60_000 });

export function useFeatures() {
  return useQuery(featuresQuery);
}
