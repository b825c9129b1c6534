import { queryOptions, useQuery } from '@tanstack/react-query';
import { STAFF_KEY, staffApi } from './client';
import type { CustomerDetail } from './types';

/** GET staff/customers/:id: account, plan, payments, devices, services, sessions and mails of one customer. */
export async function getCustomer(id: string, signal?: AbortSignal): Promise<CustomerDetail> {
  const body = await staffApi.get(`customers/${encodeURIComponent(id)}`, { signal }).json<{ data: CustomerDetail }>();
  return body.data;
}

export const customerQuery = (id: string) => queryOptions({ queryKey: [STAFF_KEY, 'customer', id], queryFn: ({ signal }) => getCustomer(id, signal), staleTime: 5_000 });

export function useCustomer(id: string) {
  return useQuery(customerQuery(id));
}
