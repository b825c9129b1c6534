import { queryOptions, useQuery } from '@tanstack/react-query';
import { isCurrenciesShape, type currencies } from '@warren/contract';
import type { z } from 'zod';
import { api } from '../api-client';
import { ensureShape } from '../answer-shape';

export type Currencies = z.infer<typeof currencies>;

/** GET billing/getCurrencies: what prices exist in, and the caller's default. */
export async function getCurrencies(): Promise<Currencies> {
  const body = await api.get('billing/getCurrencies', { context: { silent: true } }).json<{ data: unknown }>();
  return ensureShape(body.data, isCurrenciesShape, 'billing/getCurrencies');
}

export const currenciesQuery = queryOptions({
  queryKey: ['billing', 'currencies'],
  queryFn: getCurrencies,
  staleTime: Infinity,
});

export function useCurrencies() {
  return useQuery(currenciesQuery);
}
