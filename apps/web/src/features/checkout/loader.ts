import { redirect, type LoaderFunctionArgs } from 'react-router';
import { CAMPAIGN_COOKIE_DAYS } from '@warren/contract';
import { captureCheckoutParams } from '../../lib/attribution';
import { checkoutVariant, discountEntry } from '../../lib/billing/discount';
import { getCookie, setCookie } from '../../lib/cookies';
import { createAffiliateSession } from './api/affiliate-session';

export interface CheckoutLoaderData {
  /** End of the discount window (epoch ms) on the discounted variants. */
  discountEndsAtMs: number | null;
}

const recorded = new Set<string>();

/**
 * Checkout entry: captures the marketing parameters (spec section 3), records a referral visit,
 * and on the discounted variants starts or checks the one-day window (spec sections 2 and 9).
 */
export function checkoutLoader({ request }: LoaderFunctionArgs): CheckoutLoaderData {
  const url = new URL(request.url);
  const referralID = captureCheckoutParams(url.searchParams, document.referrer, window.location.origin);
  if (referralID && !recorded.has(url.href)) {
    recorded.add(url.href);
    void createAffiliateSession({ url: url.href.slice(0, 2048), referralID }).catch(() => undefined);
  }
  const variant = checkoutVariant(url.pathname);
  const entry = discountEntry(variant, variant.discountCookie ? getCookie(variant.discountCookie) : null, Date.now());
  if (entry.kind === 'expired') throw redirect(`/checkout${url.search}`);
  if (entry.kind === 'open') {
    // The cookie outlives the window, so a returning visitor is not offered a fresh one.
    if (entry.writeCookie && variant.discountCookie) setCookie(variant.discountCookie, String(entry.firstVisitMs), CAMPAIGN_COOKIE_DAYS);
    return { discountEndsAtMs: entry.endsAtMs };
  }
  return { discountEndsAtMs: null };
}
