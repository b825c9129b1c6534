import type { TariffPrice } from '@warren/contract';
import {
  SPECIAL_OFFER_SELLS_TARIFF_ID,
  type guestPriceData,
  planMonths,
  specialOfferSecondsLeft,
} from '@warren/contract';
import type { z } from 'zod';
import type { Queryable } from '../../db/client.js';
import { ValidationError } from '../../lib/errors.js';
import type { UserRow } from '../users/index.js';
import type { Catalogue } from './catalogue.js';
import {
  type DiscountWindow,
  discountCookieName,
  discountWindow,
  isDiscountList,
  readFirstVisit,
  signFirstVisit,
} from './discount.js';
import { PROMO_MESSAGES, applyPercentOff, promoProblem, resolvePrice } from './pricing.js';
import { type TariffRow, billingRepository } from './repository.js';

type GuestPriceData = z.infer<typeof guestPriceData>;

/** The request's cookies, for the discount windows. */
export type CookieJar = Readonly<Record<string, string | undefined>>;
/** A first-visit cookie the route must write: a discount window started with this answer. */
export interface CookieToSet {
  name: string;
  value: string;
}

export interface PricesDeps {
  db: Queryable;
  catalogue: Catalogue;
  /** Signs the discount windows' first-visit cookies (the app secret). */
  secret: string;
  now: () => Date;
}

/**
 * Prices and quotes: the plans (tariffs) and what they cost in a currency, price list and promo
 * code; the discount windows; who may buy the special offer. Read-only: nothing here writes.
 */
export function pricesService(deps: PricesDeps) {
  const { catalogue, now } = deps;
  const repo = billingRepository(deps.db);
  let tariffCache: TariffRow[] | undefined;
  const tariffs = async () => (tariffCache ??= await repo.tariffs());
  const tariffById = async (id: number) => (await tariffs()).find((t) => t.id === id);
  const freeName = async () => (await tariffs()).find((t) => t.is_free)?.name ?? 'Free';

  function currencyFor(country: string | undefined): string {
    return (country && catalogue.countryCurrency[country]) || catalogue.currencies[0]!;
  }
  function checkCurrency(currency: string) {
    if (!catalogue.currencies.includes(currency))
      throw new ValidationError({ currency: ['This currency is not supported.'] });
  }

  async function quote(tariffId: number, currency: string, priceList: string, promocode: string | undefined) {
    const tariff = await tariffById(tariffId);
    if (!tariff || tariff.is_free) throw new ValidationError({ tariffId: ['This plan does not exist.'] });
    checkCurrency(currency);
    const lists = await repo.priceLists();
    if (!lists.includes(priceList)) throw new ValidationError({ priceList: ['Unknown price list.'] });
    const price = resolvePrice(await repo.prices(), tariffId, currency, priceList);
    if (!price) throw new ValidationError({ tariffId: ['This plan is not sold in this currency.'] });
    let amountMinor = price.amountMinor;
    let promo: { code: string; percentOff: number } | null = null;
    if (promocode) {
      const row = await repo.promo(promocode);
      const problem = promoProblem(row, tariffId, now());
      if (problem) throw new ValidationError({ promocode: [PROMO_MESSAGES[problem]] });
      promo = { code: row!.code, percentOff: row!.percent_off };
      amountMinor = applyPercentOff(amountMinor, row!.percent_off);
    }
    return { tariff, amountMinor, listAmountMinor: price.listAmountMinor, priceList: price.priceList, promo };
  }

  /** The price divided by the plan's months ($59.99 a year → 500, i.e. $5.00); trials and lifetime have none. */
  function monthlyAmount(t: TariffRow, amount: number): number | null {
    const months = t.is_trial ? null : planMonths(t.period_days, t.is_lifetime);
    return months ? Math.round(amount / months) : null;
  }

  /** The visitor's window for a discounted list; `start` opens one when the cookie is missing (the page's price list only). */
  function windowFor(
    priceList: string,
    cookies: CookieJar | undefined,
    start: boolean,
  ): { window: DiscountWindow; set?: CookieToSet } {
    const name = discountCookieName(priceList)!;
    const nowMs = now().getTime();
    const window = discountWindow(readFirstVisit(deps.secret, name, cookies?.[name], nowMs), nowMs, { start });
    const set =
      window.state === 'open' && window.started
        ? { name, value: signFirstVisit(deps.secret, name, window.firstVisitMs) }
        : undefined;
    return { window, set };
  }
  /** A discounted list sells only inside the window its page started for this browser. */
  const discountOpen = (priceList: string, cookies: CookieJar | undefined) =>
    !isDiscountList(priceList) || windowFor(priceList, cookies, false).window.state === 'open';

  function toTariffPrice(t: TariffRow, currency: string, amount: number, listAmount: number): TariffPrice {
    return {
      tariffId: t.id,
      key: t.key,
      name: t.name,
      periodDays: t.period_days,
      isLifetime: t.is_lifetime,
      isTrial: t.is_trial,
      currency,
      amount,
      listAmount,
      discountPercent: listAmount > amount ? Math.round(((listAmount - amount) / listAmount) * 100) : 0,
      monthlyAmount: monthlyAmount(t, amount),
    };
  }

  /** Members whose single first payment was the monthly plan, less than 48 hours ago (spec section 4). */
  async function qualifiesForSpecialOffer(user: UserRow): Promise<boolean> {
    const paid = (await repo.paymentsOf(user.id)).filter((p) => p.status === 'succeeded' && p.amount_minor > 0);
    return (
      specialOfferSecondsLeft(
        paid.map((p) => ({ tariff_id: p.tariff_id, created_at: new Date(p.created_at).toISOString() })),
        now().getTime(),
      ) !== null
    );
  }

  return {
    tariffs,
    tariffById,
    freeName,
    currencyFor,
    quote,
    discountOpen,
    qualifiesForSpecialOffer,

    async currencies(country: string | undefined) {
      return { currencies: catalogue.currencies, default: currencyFor(country) };
    },

    /**
     * The plans of a landing list. A discounted list is sold only inside the visitor's one-day
     * window: the first answer starts it (`setCookie` is for the route to write), a closed window
     * is answered as the default list.
     */
    async landingPriceList(
      q: { selectedPlan?: string; currency?: string; promocode?: string },
      country: string | undefined,
      cookies?: CookieJar,
    ) {
      const currency = q.currency ?? currencyFor(country);
      checkCurrency(currency);
      const lists = await repo.priceLists();
      const wanted = q.selectedPlan ? [q.selectedPlan, `landing-${q.selectedPlan}`] : [];
      let priceList = wanted.find((l) => lists.includes(l) && l !== 'special-offer') ?? 'default';
      let offerSecondsLeft: number | null = null;
      let setCookie: CookieToSet | undefined;
      if (isDiscountList(priceList)) {
        const { window, set } = windowFor(priceList, cookies, true);
        if (window.state === 'open') offerSecondsLeft = window.secondsLeft;
        else priceList = 'default';
        setCookie = set;
      }
      const prices = await repo.prices();
      const promoRow = q.promocode ? await repo.promo(q.promocode) : undefined;
      let promo: { code: string; percentOff: number } | null = null;
      const plans: TariffPrice[] = [];
      for (const t of await tariffs()) {
        if (t.is_free) continue;
        const p = resolvePrice(prices, t.id, currency, priceList);
        if (!p) continue;
        let amount = p.amountMinor;
        // A code may cover only some plans: each plan says whether it is in its price.
        let planPromo: { code: string; percentOff: number } | null = null;
        if (promoRow && !promoProblem(promoRow, t.id, now())) {
          planPromo = promo = { code: promoRow.code, percentOff: promoRow.percent_off };
          amount = applyPercentOff(amount, promoRow.percent_off);
        }
        plans.push({ ...toTariffPrice(t, currency, amount, p.listAmountMinor), promo: planPromo });
      }
      return { currency, priceList, plans, promo, offerSecondsLeft, setCookie };
    },

    /** The special-offer list is quoted only to a signed-in member who qualifies; anyone else gets the default price. */
    async guestPriceData(
      q: { tariffId?: number; currency?: string; promocode?: string; priceList?: string },
      country: string | undefined,
      user?: UserRow,
      cookies?: CookieJar,
    ): Promise<GuestPriceData> {
      if (!q.tariffId) return {};
      const currency = q.currency ?? currencyFor(country);
      const offer =
        q.priceList === 'special-offer' &&
        q.tariffId === SPECIAL_OFFER_SELLS_TARIFF_ID &&
        user &&
        (await qualifiesForSpecialOffer(user));
      let priceList =
        q.priceList === 'special-offer' ? (offer ? 'special-offer' : 'default') : (q.priceList ?? 'default');
      // A discounted list is quoted inside the visitor's window only (a quote never starts one).
      if (!discountOpen(priceList, cookies)) priceList = 'default';
      const r = await quote(q.tariffId, currency, priceList, q.promocode);
      return {
        tariffId: r.tariff.id,
        tariffName: r.tariff.name,
        currency,
        amount: r.amountMinor,
        listAmount: r.listAmountMinor,
        promo: r.promo,
      };
    },
  };
}
export type PricesService = ReturnType<typeof pricesService>;
