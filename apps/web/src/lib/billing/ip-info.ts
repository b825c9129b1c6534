import { queryOptions, useQuery } from '@tanstack/react-query';
import { isIpInfoShape, type ipInfo } from '@warren/contract';
import type { z } from 'zod';
import { api } from '../api-client';
import { ensureShape } from '../answer-shape';

export type IpInfo = z.infer<typeof ipInfo>;

/** GET ip/info: the caller's country and its currency. Silent: pages fall back to USD. */
export async function getIpInfo(): Promise<IpInfo> {
  const body = await api.get('ip/info', { context: { silent: true } }).json<{ data: unknown }>();
  return ensureShape(body.data, isIpInfoShape, 'ip/info');
}

export const ipInfoQuery = queryOptions({ queryKey: ['ip', 'info'], queryFn: getIpInfo, staleTime: Infinity });

export function useIpInfo(enabled = true) {
  return useQuery({ ...ipInfoQuery, enabled });
}
