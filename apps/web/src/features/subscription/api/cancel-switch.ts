import { useMutation, useQueryClient } from '@tanstack/react-query';
import { envelope, subscriptionInfo, type SubscriptionInfo } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { subscriptionQuery } from './get-subscription';
import { switchOptionsQuery } from './get-switch-options';

/** POST billing/subscription/switch/cancel: drops a scheduled move to a shorter period; answers the subscription. */
export async function cancelSwitch(): Promise<SubscriptionInfo> {
  return envelope(subscriptionInfo).parse(await api.post('billing/subscription/switch/cancel', { json: {} }).json())
    .data;
}

export function useCancelSwitch() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: cancelSwitch,
    onSuccess: (info) => {
      qc.setQueryData(subscriptionQuery.queryKey, info);
      void qc.invalidateQueries({ queryKey: switchOptionsQuery.queryKey });
    },
    onError: () => qc.invalidateQueries({ queryKey: subscriptionQuery.queryKey }),
  });
}
