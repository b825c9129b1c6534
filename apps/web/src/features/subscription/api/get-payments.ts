import { queryOptions, useQuery } from '@tanstack/react-query';
import { envelope, paymentHistory, type PaymentHistory } from '@warren/contract';
import { api } from '../../../lib/api-client';

/** GET billing/payments: the member's payments, renewals, failed attempts and refunds, newest first. */
export async function getPayments(): Promise<PaymentHistory> {
  return envelope(paymentHistory).parse(await api.get('billing/payments').json()).data;
}

export const paymentsQuery = queryOptions({
  queryKey: ['billing', 'payments'],
  queryFn: getPayments,
  staleTime: 10_000,
});

export function usePayments() {
  return useQuery(paymentsQuery);
}
