import { queryOptions, useQuery } from '@tanstack/react-query';
import { envelope, operationSystemsResult, type DownloadPlatform } from '@warren/contract';
import { api } from '../../../lib/api-client';

export interface OperationSystem {
  id: number;
  platform: DownloadPlatform;
  name: string;
  className: string;
}

/** GET dashboard/operationSystems: the systems the setup guide covers (spec section 7: data.items). */
export async function getOperationSystems(): Promise<OperationSystem[]> {
  const body = await api.get('dashboard/operationSystems').json();
  return envelope(operationSystemsResult).parse(body).data.items;
}

export const operationSystemsQuery = queryOptions({
  queryKey: ['dashboard', 'operationSystems'],
  queryFn: getOperationSystems,
  staleTime: 60 * 60_000,
});

export function useOperationSystems() {
  return useQuery(operationSystemsQuery);
}
