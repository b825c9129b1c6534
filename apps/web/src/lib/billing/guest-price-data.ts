import type { guestPriceData } from '@warren/contract';
import type { z } from 'zod';
import { api } from '../api-client';
import { searchOf } from './landing-price-list';

export type GuestPriceData = z.infer<typeof guestPriceData>;
export interface GuestPriceQuery {
  tariffId?: number;
  currency?: string;
  promocode?: string;
  priceList?: string;
}

/**
 * GET billing/getGuestPriceData: the price of one plan with a promo code applied. Without a
 * tariffId the API answers empty data. Silent: a bad promo code is a 422 the form shows itself.
 */
export async function getGuestPriceData(q: GuestPriceQuery): Promise<GuestPriceData> {
  if (!q.tariffId) return {};
  const body = await api
    .get('billing/getGuestPriceData', {
      searchParams: searchOf({ ...q, tariffId: String(q.tariffId) }),
      context: { silent: true },
    })
    .json<{ data: unknown }>();
  const schemas = await import('./billing-schemas');
  return schemas.guestPriceData.parse(body.data);
}
