import { queryOptions, useQuery } from '@tanstack/react-query';
import { envelope, sessionList } from '@warren/contract';
import type { z } from 'zod';
import { api } from '../../../lib/api-client';

export type ActiveSession = z.infer<typeof sessionList>['items'][number];

/** GET profile/sessions: the account's signed-in sessions, the current one marked. */
export async function getSessions(): Promise<ActiveSession[]> {
  const body = await api.get('profile/sessions').json();
  return envelope(sessionList).parse(body).data.items;
}

export const sessionsQuery = queryOptions({
  queryKey: ['profile', 'sessions'],
  queryFn: getSessions,
  staleTime: 10_000,
});

export function useSessions() {
  return useQuery(sessionsQuery);
}
