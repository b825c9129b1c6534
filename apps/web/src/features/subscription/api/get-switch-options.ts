import { queryOptions, useQuery } from '@tanstack/react-query';
import { envelope, switchOptions, type SwitchOptions } from '@warren/contract';
import { api } from '../../../lib/api-client';

/** GET billing/subscription/switch/options: the periods the plan can switch to, each with its quote (issue 23). */
export async function getSwitchOptions(): Promise<SwitchOptions> {
  return envelope(switchOptions).parse(await api.get('billing/subscription/switch/options').json()).data;
}

export const switchOptionsQuery = queryOptions({
  queryKey: ['billing', 'subscription', 'switch-options'],
  queryFn: getSwitchOptions,
  // A quote's credit shrinks by the minute: never shown from an old cache.
  staleTime: 0,
});

export function useSwitchOptions(enabled: boolean) {
  return useQuery({ ...switchOptionsQuery, enabled });
}
