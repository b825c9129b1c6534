import { CHECKOUT_VARIANTS, DISCOUNT_WINDOW_MS, isDiscountWindowOpen, type CheckoutVariant } from '@warren/contract';

/** The variant of a checkout path (trailing slash ignored); unknown paths are plain /checkout. */
export function checkoutVariant(pathname: string): CheckoutVariant & { path: string } {
  const path = pathname.replace(/\/+$/, '') || '/checkout';
  const variant = CHECKOUT_VARIANTS[path];
  return variant ? { ...variant, path } : { ...CHECKOUT_VARIANTS['/checkout']!, path: '/checkout' };
}

/**
 * The first-visit cookie, written by the server: `<epoch ms>.<signature>` (the signature is the
 * server's to check; the page only reads the time). Anything else counts as no visit yet.
 */
export function parseFirstVisit(value: string | null | undefined, nowMs: number): number | null {
  const m = value ? /^(\d{10,16})(?:\.[A-Za-z0-9_-]{43})?$/.exec(value) : null;
  if (!m) return null;
  const ms = Number(m[1]);
  // A first visit in the future is a tampered or clock-skewed cookie: start the window now.
  return ms > nowMs ? null : ms;
}

export type DiscountEntry =
  { kind: 'none' } | { kind: 'open'; firstVisitMs: number; endsAtMs: number } | { kind: 'expired' };

/**
 * Entering a discounted checkout (spec sections 2 and 9): the first visit starts a one-day
 * window, which the server keeps in the variant's cookie when it first answers the page's price
 * list; once it has passed the visitor goes to /checkout. Without a cookie yet the window is
 * about to start now.
 */
export function discountEntry(
  variant: CheckoutVariant,
  cookieValue: string | null,
  nowMs: number,
  windowMs = DISCOUNT_WINDOW_MS,
): DiscountEntry {
  if (!variant.discountCookie) return { kind: 'none' };
  const firstVisitMs = parseFirstVisit(cookieValue, nowMs) ?? nowMs;
  if (!isDiscountWindowOpen(firstVisitMs, nowMs, windowMs)) return { kind: 'expired' };
  return { kind: 'open', firstVisitMs, endsAtMs: firstVisitMs + windowMs };
}

export type ServerOffer = { kind: 'none' } | { kind: 'open'; endsAtMs: number } | { kind: 'closed' };

/**
 * What the server says of a discounted variant's window (it decides who may buy at the
 * discount): open with the seconds left, counted from when the answer arrived on this device's
 * clock (so a skewed clock does not move the end), or closed (it answered another list).
 */
export function serverOffer(
  variant: Pick<CheckoutVariant, 'discountCookie' | 'priceList'>,
  answer: { priceList: string; offerSecondsLeft?: number | null } | undefined,
  receivedAtMs: number,
): ServerOffer {
  if (!variant.discountCookie || !answer) return { kind: 'none' };
  if (answer.priceList !== variant.priceList || !answer.offerSecondsLeft || answer.offerSecondsLeft <= 0)
    return { kind: 'closed' };
  return { kind: 'open', endsAtMs: receivedAtMs + answer.offerSecondsLeft * 1000 };
}

/** Whole seconds left until `endsAtMs` (never negative). */
export function secondsUntil(endsAtMs: number, nowMs: number): number {
  return Math.max(0, Math.floor((endsAtMs - nowMs) / 1000));
}

/** 86399 → "23:59:59"; days fold into hours ("47:59:59"). */
export function formatCountdown(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}
