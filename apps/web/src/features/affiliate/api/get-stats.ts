import { queryOptions, useQuery } from '@tanstack/react-query';
import { affiliateStats, envelope } from '@warren/contract';
import type { z } from 'zod';
import { api } from '../../../lib/api-client';

export type AffiliateStats = z.infer<typeof affiliateStats>;

/** GET affiliate/stats: the user's referral link, clicks, sign-ups, paying referrals and earnings. */
export async function getAffiliateStats(): Promise<AffiliateStats> {
  const body = await api.get('affiliate/stats').json();
  return envelope(affiliateStats).parse(body).data;
}

export const affiliateStatsQuery = queryOptions({
  queryKey: ['affiliate', 'stats'],
  queryFn: getAffiliateStats,
  staleTime: 60_000,
});

export function useAffiliateStats() {
  return useQuery(affiliateStatsQuery);
}
