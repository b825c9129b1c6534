import { queryOptions, useQuery } from '@tanstack/react-query';
import { billingAddressResult, envelope, type BillingAddressResult } from '@warren/contract';
import { api } from '../../../lib/api-client';

/** GET billing/address: the billing address and VAT number printed on receipts (issue 23). */
export async function getBillingAddress(): Promise<BillingAddressResult> {
  return envelope(billingAddressResult).parse(await api.get('billing/address').json()).data;
}

export const billingAddressQuery = queryOptions({
  queryKey: ['billing', 'address'],
  queryFn: getBillingAddress,
});

export function useBillingAddress() {
  return useQuery(billingAddressQuery);
}
