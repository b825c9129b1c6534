import { useMutation, useQueryClient } from '@tanstack/react-query';
import { envelope, refundAnswer, type RefundAnswer } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { refreshUser } from '../../../lib/session';
import { paymentsQuery } from './get-payments';
import { subscriptionQuery } from './get-subscription';

/**
 * POST billing/payments/:publicId/refund: the money back inside the window; answers the list after
 * it and the outcome (refunded now, or requested: support refunds it, for Payssion and Cardlink).
 */
export async function requestRefund(paymentId: string): Promise<RefundAnswer> {
  const body = await api.post(`billing/payments/${encodeURIComponent(paymentId)}/refund`, { json: {} }).json();
  return envelope(refundAnswer).parse(body).data;
}

export function useRequestRefund() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: requestRefund,
    onSuccess: ({ outcome: _outcome, ...list }) => qc.setQueryData(paymentsQuery.queryKey, list),
    // The plan changed (a period went back): the subscription and the signed-in user's plan follow.
    onSettled: () => Promise.all([qc.invalidateQueries({ queryKey: subscriptionQuery.queryKey }), refreshUser()]),
  });
}
