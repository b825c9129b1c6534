import { queryOptions, useQuery } from '@tanstack/react-query';
import { envelope, rewards } from '@warren/contract';
import type { z } from 'zod';
import { api } from '../../../lib/api-client';

export type Rewards = z.infer<typeof rewards>;

/** GET rewards: the friend link, days per friend, total days earned and the ledger. */
export async function getRewards(): Promise<Rewards> {
  const body = await api.get('rewards').json();
  return envelope(rewards).parse(body).data;
}

export const rewardsQuery = queryOptions({ queryKey: ['rewards'], queryFn: getRewards, staleTime: 60_000 });

export function useRewards() {
  return useQuery(rewardsQuery);
}
