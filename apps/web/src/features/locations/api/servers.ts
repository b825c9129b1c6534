import { queryOptions, useQuery } from '@tanstack/react-query';
import { envelope, serverListResult, type ServerListItem } from '@warren/contract';
import { api } from '../../../lib/api-client';

/** GET setup/servers/get?langCode: visible locations, premium first, blurred for free users. */
export async function getServers(langCode: string): Promise<ServerListItem[]> {
  const body = await api.get('setup/servers/get', { searchParams: { langCode } }).json();
  return envelope(serverListResult).parse(body).data.serverList;
}

export const serversQuery = (langCode: string) =>
  queryOptions({ queryKey: ['setup', 'servers', langCode], queryFn: () => getServers(langCode), staleTime: 60_000 });

export function useServers(langCode: string) {
  return useQuery(serversQuery(langCode));
}
