import { checkoutAfterDiscount } from '@warren/contract';
import { redirect, type LoaderFunctionArgs } from 'react-router';
import { captureCheckoutParams } from '../../lib/attribution';
import { checkoutVariant, discountEntry } from '../../lib/billing/discount';
import { getCookie } from '../../lib/cookies';
import { takeServerPrices } from '../../lib/server-answers';
import { createAffiliateSession } from './api/affiliate-session';

export interface CheckoutLoaderData {
  /** End of the discount window (epoch ms) on the discounted variants, from the server's cookie (the page then follows the server's answer). */
  discountEndsAtMs: number | null;
}

const recorded = new Set<string>();

/**
 * Checkout entry: captures the marketing parameters (spec section 3), records a referral visit,
 * and on the discounted variants checks the one-day window (spec sections 2 and 9). The window
 * itself is the server's: it starts it when it first answers the page's price list, in a signed
 * cookie the page reads here; a visitor whose window has passed goes to /checkout. A page the
 * server rendered with its price list answer was decided there (the server sends a closed window
 * to /checkout itself).
 */
export function checkoutLoader({ request }: LoaderFunctionArgs): CheckoutLoaderData {
  const url = new URL(request.url);
  const referralID = captureCheckoutParams(url.searchParams, document.referrer, window.location.origin);
  if (referralID && !recorded.has(url.href)) {
    recorded.add(url.href);
    void createAffiliateSession({ url: url.href.slice(0, 2048), referralID }).catch(() => undefined);
  }
  const variant = checkoutVariant(url.pathname);
  // The server rendered this page with its answer on the window: it decided (lib/server-answers.ts).
  if (takeServerPrices(url.pathname)) return { discountEndsAtMs: null };
  const entry = discountEntry(variant, variant.discountCookie ? getCookie(variant.discountCookie) : null, Date.now());
  if (entry.kind === 'expired') throw redirect(`${checkoutAfterDiscount(variant)}${url.search}`);
  return { discountEndsAtMs: entry.kind === 'open' ? entry.endsAtMs : null };
}
