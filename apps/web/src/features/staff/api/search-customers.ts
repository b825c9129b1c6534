import { queryOptions, useQuery } from '@tanstack/react-query';
import { STAFF_KEY, staffApi } from './client';
import type { CustomerSummary } from './types';

/** GET staff/customers?q=: customers by email (or part of it) or by id. */
export async function searchCustomers(q: string, signal?: AbortSignal): Promise<CustomerSummary[]> {
  const body = await staffApi.get('customers', { searchParams: { q }, signal }).json<{ data: CustomerSummary[] }>();
  return body.data;
}

export const customerSearchQuery = (q: string) =>
  queryOptions({ queryKey: [STAFF_KEY, 'customers', 'search', q], queryFn: ({ signal }) => searchCustomers(q, signal), enabled: q.trim().length > 0, staleTime: 10_000 });

export function useCustomerSearch(q: string) {
  return useQuery(customerSearchQuery(q));
}
