import { useMutation, useQueryClient } from '@tanstack/react-query';
import { billingAddressResult, envelope, type BillingAddressResult } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { billingAddressQuery } from './get-billing-address';

/** POST billing/address/remove: the next receipts name the email only. */
export async function removeBillingAddress(): Promise<BillingAddressResult> {
  return envelope(billingAddressResult).parse(await api.post('billing/address/remove', { json: {} }).json()).data;
}

export function useRemoveBillingAddress() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: removeBillingAddress,
    onSuccess: (result) => qc.setQueryData(billingAddressQuery.queryKey, result),
  });
}
