import { useMutation, useQueryClient } from '@tanstack/react-query';
import { envelope, subscriptionInfo, type SubscriptionInfo } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { subscriptionQuery } from './get-subscription';

/** POST billing/subscription/paymentMethod/confirm: back from the provider, the new card replaces the saved one. */
export async function confirmPaymentMethod(): Promise<SubscriptionInfo> {
  return envelope(subscriptionInfo).parse(
    await api.post('billing/subscription/paymentMethod/confirm', { json: {} }).json(),
  ).data;
}

export function useConfirmPaymentMethod() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: confirmPaymentMethod,
    onSuccess: (info) => qc.setQueryData(subscriptionQuery.queryKey, info),
  });
}
