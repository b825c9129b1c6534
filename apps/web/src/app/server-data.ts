import { checkoutAfterDiscount, currencies, ipInfo, landingPriceList, paymentMethods } from '@warren/contract';
import type { z } from 'zod';
import { checkoutVariant, serverOffer } from '../lib/billing/discount';
import { currenciesQuery } from '../lib/billing/currencies';
import { ipInfoQuery } from '../lib/billing/ip-info';
import { landingPriceListQuery, searchOf } from '../lib/billing/landing-price-list';
import { paymentMethodsQuery } from '../lib/billing/payment-methods';

/** An API answer the server render put in the page's query cache, under the key the page reads it with. */
export interface PageData {
  key: readonly unknown[];
  data: unknown;
}

/** GET an API path (e.g. `/api/ip/info`) as the visitor's browser would; the answer's `data`, or undefined if it failed. */
export type ApiGet = (path: string) => Promise<unknown>;

/** What a page's answers decide before it is rendered (server-routes.tsx ServerPage.outcome). */
export interface PageOutcome {
  /** Another page of this site the visitor goes to instead (a discount window that has closed: /checkout); the server keeps the query. */
  redirect?: string;
  /** The HTML is this visitor's alone (a discount's countdown): rendered for them, not kept for others. */
  perVisitor?: boolean;
}

/**
 * The API answers a page shows on its first screen, asked for on the server (ServerPage.data in
 * server-routes.tsx) under the same query keys the page's hooks use, so the browser's first
 * render finds them in its cache. Each answer is checked with the contract's schema, as the
 * page's fetchers check it; one that fails is left out and the page asks for it itself.
 */
async function answer<S extends z.ZodType>(
  get: ApiGet,
  path: string,
  schema: S,
  key: readonly unknown[],
  out: PageData[],
): Promise<z.infer<S> | undefined> {
  const parsed = schema.safeParse(await get(path));
  if (!parsed.success) return undefined;
  out.push({ key, data: parsed.data });
  return parsed.data;
}

/**
 * A checkout variant's first screen (lib/billing/checkout-state.ts useCheckout): the currencies,
 * the visitor's country and currency (unless the variant fixes one: the country from the
 * address decides, as GET ip/info does), the variant's price list in that currency (a discounted
 * variant starts the visitor's one-day window, whose cookie goes with the page, or finds it closed: checkoutOutcome) and the payment
 * methods. The page itself must render the same with them on the server and in the browser
 * before it is listed in SERVER_PAGES.
 */
export async function checkoutPageData(pathname: string, get: ApiGet): Promise<PageData[]> {
  const variant = checkoutVariant(pathname);
  const out: PageData[] = [];
  const [list, ip] = await Promise.all([
    answer(get, '/api/billing/getCurrencies', currencies, currenciesQuery.queryKey, out),
    variant.currency ? Promise.resolve(undefined) : answer(get, '/api/ip/info', ipInfo, ipInfoQuery.queryKey, out),
    answer(get, '/api/billing/paymentMethods', paymentMethods, paymentMethodsQuery().queryKey, out),
  ]);
  const currency = variant.currency ?? ip?.currency ?? list?.default;
  if (!currency) return out;
  const q = { selectedPlan: variant.priceList !== 'default' ? variant.priceList : undefined, currency };
  await answer(
    get,
    `/api/billing/getLandingPriceList?${new URLSearchParams(searchOf(q))}`,
    landingPriceList,
    landingPriceListQuery(q).queryKey,
    out,
  );
  return out;
}

/**
 * A discounted variant's window, as the server's price list answer says it (the server keeps it
 * in a signed cookie; the visitor's clock has no say): closed sends the visitor to /checkout, as
 * the page would (spec section 2); open shows a countdown of this visitor's, so the HTML is not
 * kept for others. Without the answer the page renders without prices and asks itself.
 */
export function checkoutOutcome(pathname: string, data: readonly PageData[]): PageOutcome {
  const variant = checkoutVariant(pathname);
  if (!variant.discountCookie) return {};
  const answer = data.find((d) => d.key[0] === 'billing' && d.key[1] === 'landingPriceList')?.data as
    { priceList: string; offerSecondsLeft?: number | null } | undefined;
  const offer = serverOffer(variant, answer, 0);
  if (offer.kind === 'closed') return { redirect: checkoutAfterDiscount(variant) };
  return offer.kind === 'open' ? { perVisitor: true } : {};
}
