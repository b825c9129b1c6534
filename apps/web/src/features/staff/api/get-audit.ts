import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { envelope, staffAuditPage, type StaffAuditPage } from '@warren/contract';
import { STAFF_KEY, staffApi } from './client';

/** GET staff/audit?targetUserId=&cursor=: the audit log, newest first, a page at a time; of everyone or of one customer. */
export async function getAudit({
  customerId,
  cursor,
  signal,
}: {
  customerId: number | null;
  cursor: string | null;
  signal?: AbortSignal;
}): Promise<StaffAuditPage> {
  const searchParams: Record<string, string> = {};
  if (customerId) searchParams.targetUserId = String(customerId);
  if (cursor) searchParams.cursor = cursor;
  return envelope(staffAuditPage).parse(await staffApi.get('audit', { searchParams, signal }).json()).data;
}

export const auditQuery = (customerId: number | null) =>
  infiniteQueryOptions({
    queryKey: [STAFF_KEY, 'audit', customerId],
    queryFn: ({ pageParam, signal }) => getAudit({ customerId, cursor: pageParam, signal }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    staleTime: 5_000,
  });

export function useAudit(customerId: number | null) {
  return useInfiniteQuery(auditQuery(customerId));
}
