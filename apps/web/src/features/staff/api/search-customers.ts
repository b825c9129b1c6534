import { queryOptions, useQuery } from '@tanstack/react-query';
import { envelope, staffCustomerList, type StaffCustomerSummary } from '@warren/contract';
import { STAFF_KEY, staffApi } from './client';

/** GET staff/customers?q=: customers by email, a part of it, or id. */
export async function searchCustomers(q: string, signal?: AbortSignal): Promise<StaffCustomerSummary[]> {
  const body = await staffApi.get('customers', { searchParams: { q }, signal }).json();
  return envelope(staffCustomerList).parse(body).data.items;
}

export const customerSearchQuery = (q: string) =>
  queryOptions({
    queryKey: [STAFF_KEY, 'customers', 'search', q],
    queryFn: ({ signal }) => searchCustomers(q, signal),
    enabled: q.trim().length > 0,
    staleTime: 10_000,
  });

export function useCustomerSearch(q: string) {
  return useQuery(customerSearchQuery(q));
}
