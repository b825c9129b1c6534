import { queryOptions, useQuery } from '@tanstack/react-query';
import { STAFF_KEY, staffApi } from './client';
import type { AuditEntry } from './types';

/** GET staff/audit?customer=: the audit log, newest first, of everyone or of one customer. */
export async function getAudit(customer: string, signal?: AbortSignal): Promise<AuditEntry[]> {
  const searchParams = customer ? { customer } : {};
  return (await staffApi.get('audit', { searchParams, signal }).json<{ data: AuditEntry[] }>()).data;
}

export const auditQuery = (customer: string) => queryOptions({ queryKey: [STAFF_KEY, 'audit', customer], queryFn: ({ signal }) => getAudit(customer, signal), staleTime: 5_000 });

export function useAudit(customer: string) {
  return useQuery(auditQuery(customer));
}
