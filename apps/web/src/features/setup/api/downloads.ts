import { queryOptions, useQuery } from '@tanstack/react-query';
import { downloadsResult, envelope, type DownloadApp } from '@warren/contract';
import { api } from '../../../lib/api-client';

/** GET setup/downloads/get: the apps catalogue (version, size, checksum). */
export async function getDownloads(): Promise<DownloadApp[]> {
  const body = await api.get('setup/downloads/get').json();
  return envelope(downloadsResult).parse(body).data.items;
}

export const downloadsQuery = queryOptions({
  queryKey: ['setup', 'downloads'],
  queryFn: getDownloads,
  staleTime: 10 * 60_000,
});

export function useDownloads() {
  return useQuery(downloadsQuery);
}
