import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { isLandingPriceListShape, type landingPriceList } from '@warren/contract';
import type { z } from 'zod';
import { api } from '../api-client';
import { ensureShape } from '../answer-shape';

export type LandingPriceList = z.infer<typeof landingPriceList>;
export interface LandingPriceQuery {
  selectedPlan?: string;
  currency?: string;
  promocode?: string;
  referralID?: string;
}

function searchOf(q: object): Record<string, string> {
  return Object.fromEntries(
    Object.entries(q).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''),
  );
}

/** GET billing/getLandingPriceList: the plans of a price list (selectedPlan picks a landing list) in a currency. */
export async function getLandingPriceList(q: LandingPriceQuery): Promise<LandingPriceList> {
  const body = await api.get('billing/getLandingPriceList', { searchParams: searchOf(q) }).json<{ data: unknown }>();
  return ensureShape(body.data, isLandingPriceListShape, 'billing/getLandingPriceList');
}

/**
 * The key is what the answer depends on: the list, the currency and the code. The referralID
 * goes with the request (the spec's call carries it) but does not change the prices, so it is
 * not in the key: a visitor who came through a referral link (a stored referralID, which the
 * server never sees) finds the prices the server rendered the checkout with in the cache instead
 * of asking again (landing-price-list.test.ts; the API's side in apps/api/test/billing-prices).
 */
export function landingPriceListQuery(q: LandingPriceQuery) {
  const { referralID: _sentNotKeyed, ...keyed } = q;
  return queryOptions({
    queryKey: ['billing', 'landingPriceList', searchOf(keyed)],
    queryFn: () => getLandingPriceList(q),
    staleTime: 5 * 60_000,
  });
}

export function useLandingPriceList(q: LandingPriceQuery, enabled = true) {
  return useQuery({ ...landingPriceListQuery(q), enabled, placeholderData: keepPreviousData });
}

export { searchOf };
