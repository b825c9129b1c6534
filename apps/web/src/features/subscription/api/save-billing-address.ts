import { useMutation, useQueryClient } from '@tanstack/react-query';
import { billingAddressResult, envelope, type BillingAddressBody, type BillingAddressResult } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { billingAddressQuery } from './get-billing-address';

/** POST billing/address: saves the address and VAT number for the receipts issued from now on. */
export async function saveBillingAddress(body: BillingAddressBody): Promise<BillingAddressResult> {
  return envelope(billingAddressResult).parse(await api.post('billing/address', { json: body }).json()).data;
}

export function useSaveBillingAddress() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: saveBillingAddress,
    onSuccess: (result) => qc.setQueryData(billingAddressQuery.queryKey, result),
  });
}
