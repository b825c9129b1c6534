import { useMutation } from '@tanstack/react-query';
import { envelope, methodUpdateStart, type MethodUpdateStart } from '@warren/contract';
import { api } from '../../../lib/api-client';

/** POST billing/subscription/paymentMethod/update: the provider's page to save a new card, nothing charged (issue 23). */
export async function updatePaymentMethod(): Promise<MethodUpdateStart> {
  return envelope(methodUpdateStart).parse(
    await api.post('billing/subscription/paymentMethod/update', { json: {} }).json(),
  ).data;
}

export function useUpdatePaymentMethod() {
  return useMutation({ mutationFn: updatePaymentMethod });
}
