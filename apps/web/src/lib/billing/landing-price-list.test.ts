// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { landingPriceListQuery } from './landing-price-list';

describe('the landing price list query', () => {
  it('is keyed by what the prices depend on: a stored referralID finds the answer the server rendered the page with', () => {
    const server = landingPriceListQuery({ selectedPlan: 'discount-15', currency: 'EUR' }).queryKey;
    const referred = landingPriceListQuery({
      selectedPlan: 'discount-15',
      currency: 'EUR',
      referralID: 'ref-42',
    }).queryKey;
    expect(referred).toEqual(server);
    // What does change the prices is in the key.
    expect(landingPriceListQuery({ currency: 'USD' }).queryKey).not.toEqual(
      landingPriceListQuery({ currency: 'EUR' }).queryKey,
    );
    expect(landingPriceListQuery({ currency: 'USD', promocode: 'YEAR30' }).queryKey).not.toEqual(
      landingPriceListQuery({ currency: 'USD' }).queryKey,
    );
    expect(landingPriceListQuery({ currency: 'USD', selectedPlan: 'lite' }).queryKey).not.toEqual(
      landingPriceListQuery({ currency: 'USD' }).queryKey,
    );
  });
});
