import { queryOptions, useQuery } from '@tanstack/react-query';
import { envelope, subscriptionInfo, type SubscriptionInfo } from '@warren/contract';
import { api } from '../../../lib/api-client';

/** GET billing/subscription: the plan, its status, renewal, next charge and saved method. */
export async function getSubscription(): Promise<SubscriptionInfo> {
  return envelope(subscriptionInfo).parse(await api.get('billing/subscription').json()).data;
}

export const subscriptionQuery = queryOptions({
  queryKey: ['billing', 'subscription'],
  queryFn: getSubscription,
  staleTime: 10_000,
});

export function useSubscription() {
  return useQuery(subscriptionQuery);
}
