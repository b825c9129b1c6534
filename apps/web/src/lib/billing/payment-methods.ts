import { queryOptions, useQuery } from '@tanstack/react-query';
import { isPaymentMethodsShape, type paymentMethods } from '@warren/contract';
import type { z } from 'zod';
import { api } from '../api-client';
import { ensureShape } from '../answer-shape';

export type PaymentMethods = z.infer<typeof paymentMethods>;
export type PaymentMethod = PaymentMethods['methods'][number];

/** GET billing/paymentMethods: what can pay in the visitor's country (from the IP unless given). */
export async function getPaymentMethods(country?: string): Promise<PaymentMethods> {
  const body = await api
    .get('billing/paymentMethods', { searchParams: country ? { country } : {} })
    .json<{ data: unknown }>();
  return ensureShape(body.data, isPaymentMethodsShape, 'billing/paymentMethods');
}

export function paymentMethodsQuery(country?: string) {
  return queryOptions({
    queryKey: ['billing', 'paymentMethods', country ?? ''],
    queryFn: () => getPaymentMethods(country),
    staleTime: 10 * 60_000,
  });
}

export function usePaymentMethods(country?: string) {
  return useQuery(paymentMethodsQuery(country));
}

export const methodId = (m: Pick<PaymentMethod, 'provider' | 'type'>) => `${m.provider}:${m.type}`;
