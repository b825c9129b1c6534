import { queryOptions, useQuery } from '@tanstack/react-query';
import { PASSKEY_PATHS, envelope, passkeyList, type Passkey } from '@warren/contract';
import { api } from '../../../lib/api-client';

export type { Passkey };

/** The api client's prefix is /api/: the contract's paths without it. */
export const passkeyPath = (path: string) => path.replace(/^\/api\//, '');

/** GET profile/passkeys: the account's passkeys, oldest first. */
export async function getPasskeys(): Promise<Passkey[]> {
  const body = await api.get(passkeyPath(PASSKEY_PATHS.list)).json();
  return envelope(passkeyList).parse(body).data.items;
}

export const passkeysQuery = queryOptions({
  queryKey: ['profile', 'passkeys'],
  queryFn: getPasskeys,
  staleTime: 10_000,
});

export function usePasskeys(enabled = true) {
  return useQuery({ ...passkeysQuery, enabled });
}
