import { useMutation, useQueryClient } from '@tanstack/react-query';
import { envelope, subscriptionInfo, type SetAutoRenewBody, type SubscriptionInfo } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { subscriptionQuery } from './get-subscription';

/** POST billing/subscription/autoRenew {enabled}: answers the subscription as it now is. */
export async function setAutoRenew(body: SetAutoRenewBody): Promise<SubscriptionInfo> {
  return envelope(subscriptionInfo).parse(await api.post('billing/subscription/autoRenew', { json: body }).json()).data;
}

export function useSetAutoRenew() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: setAutoRenew,
    onSuccess: (info) => qc.setQueryData(subscriptionQuery.queryKey, info),
    onError: () => qc.invalidateQueries({ queryKey: subscriptionQuery.queryKey }),
  });
}
