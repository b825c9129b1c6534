import { queryOptions } from '@tanstack/react-query';
import { STAFF_KEY, staffApi } from './client';
import type { StaffMe } from './types';

/** GET staff/me: who is signed in to the console, their role and when the session ends. */
export async function getMe(opts: { signal?: AbortSignal; quiet?: boolean } = {}): Promise<StaffMe> {
  // The guard asks quietly: a missing session there is a redirect, not an expired one.
  const body = await staffApi.get('me', { signal: opts.signal, context: opts.quiet ? { skipAuthHandling: true, silent: true } : {} }).json<{ data: StaffMe }>();
  return body.data;
}

export const meQuery = queryOptions({ queryKey: [STAFF_KEY, 'me'], queryFn: ({ signal }) => getMe({ signal }), staleTime: 60_000 });
