import { queryOptions } from '@tanstack/react-query';
import { envelope, staffMe, type StaffMe } from '@warren/contract';
import { STAFF_KEY, staffApi } from './client';

/** GET staff/me: who is signed in to the console, their role and when the session ends. */
export async function getMe(opts: { signal?: AbortSignal; quiet?: boolean } = {}): Promise<StaffMe> {
  // The guard asks quietly: a missing session there is a redirect, not an expired one.
  const body = await staffApi
    .get('me', { signal: opts.signal, context: opts.quiet ? { skipAuthHandling: true, silent: true } : {} })
    .json();
  return envelope(staffMe).parse(body).data;
}

export const meQuery = queryOptions({
  queryKey: [STAFF_KEY, 'me'],
  queryFn: ({ signal }) => getMe({ signal }),
  staleTime: 60_000,
});
