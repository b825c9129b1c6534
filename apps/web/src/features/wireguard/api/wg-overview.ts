import { queryOptions, useQuery } from '@tanstack/react-query';
import { envelope, wgOverview, type WgOverview } from '@warren/contract';
import { api } from '../../../lib/api-client';

/** GET setup/wg/get: the user's devices (with handshake and transfer), the limit and the locations' endpoints. */
export async function getWgOverview(langCode: string): Promise<WgOverview> {
  const body = await api.get('setup/wg/get', { searchParams: { langCode } }).json();
  return envelope(wgOverview).parse(body).data;
}

export const wgOverviewQuery = (langCode: string) =>
  queryOptions({
    queryKey: ['setup', 'wg', langCode],
    queryFn: () => getWgOverview(langCode),
    staleTime: 15_000,
    refetchInterval: 30_000,
  });

export function useWgOverview(langCode: string) {
  return useQuery(wgOverviewQuery(langCode));
}
