import { queryOptions, useQuery } from '@tanstack/react-query';
import { isPlanInfoShape, type PlanInfo } from '@warren/contract';
import { api } from '../api-client';
import { ensureShape } from '../answer-shape';

/** GET billing/getPlanInfo (auth): current plan, expiry, payment status and the payments list. */
export async function getPlanInfo(): Promise<PlanInfo> {
  const body = await api.get('billing/getPlanInfo', { context: { silent: true } }).json<{ data: unknown }>();
  return ensureShape(body.data, isPlanInfoShape, 'billing/getPlanInfo');
}

/**
 * Keyed by the user's plan name: when it changes (a payment landed), the plan info is fetched
 * again (spec section 4, special offer).
 */
export function planInfoQuery(tariffName: string | null | undefined) {
  return queryOptions({ queryKey: ['billing', 'planInfo', tariffName ?? ''], queryFn: getPlanInfo, staleTime: 60_000 });
}

export function usePlanInfo(
  tariffName: string | null | undefined,
  opts: { enabled?: boolean; refetchInterval?: number | false } = {},
) {
  return useQuery({
    ...planInfoQuery(tariffName),
    enabled: opts.enabled ?? true,
    refetchInterval: opts.refetchInterval,
  });
}
