import { queryOptions, useQuery } from '@tanstack/react-query';
import { envelope, staffCustomer, type StaffCustomer } from '@warren/contract';
import { STAFF_KEY, staffApi } from './client';

/** GET staff/customers/:id: account, plan, payments, devices, services, sessions and mails of one customer (the view is audited). */
export async function getCustomer(id: string, signal?: AbortSignal): Promise<StaffCustomer> {
  const body = await staffApi.get(`customers/${encodeURIComponent(id)}`, { signal }).json();
  return envelope(staffCustomer).parse(body).data;
}

export const customerQuery = (id: string) =>
  queryOptions({
    queryKey: [STAFF_KEY, 'customer', id],
    queryFn: ({ signal }) => getCustomer(id, signal),
    staleTime: 30_000,
  });

export function useCustomer(id: string) {
  return useQuery(customerQuery(id));
}
