import { CHECKOUT_VARIANTS, DISCOUNT_WINDOW_MS, isDiscountWindowOpen, type CheckoutVariant } from '@warren/contract';

/** The variant of a checkout path (trailing slash ignored); unknown paths are plain /checkout. */
export function checkoutVariant(pathname: string): CheckoutVariant & { path: string } {
  const path = pathname.replace(/\/+$/, '') || '/checkout';
  const variant = CHECKOUT_VARIANTS[path];
  return variant ? { ...variant, path } : { ...CHECKOUT_VARIANTS['/checkout']!, path: '/checkout' };
}

/** The first-visit cookie holds epoch milliseconds; anything else counts as no visit yet. */
export function parseFirstVisit(value: string | null | undefined, nowMs: number): number | null {
  if (!value || !/^\d{10,16}$/.test(value)) return null;
  const ms = Number(value);
  // A first visit in the future is a tampered or clock-skewed cookie: start the window now.
  return ms > nowMs ? null : ms;
}

export type DiscountEntry =
  | { kind: 'none' }
  | { kind: 'open'; firstVisitMs: number; endsAtMs: number; writeCookie: boolean }
  | { kind: 'expired' };

/**
 * Entering a discounted checkout (spec sections 2 and 9): the first visit starts a one-day
 * window kept in the variant's cookie; once it has passed the visitor goes to /checkout.
 */
export function discountEntry(variant: CheckoutVariant, cookieValue: string | null, nowMs: number, windowMs = DISCOUNT_WINDOW_MS): DiscountEntry {
  if (!variant.discountCookie) return { kind: 'none' };
  const stored = parseFirstVisit(cookieValue, nowMs);
  const firstVisitMs = stored ?? nowMs;
  if (!isDiscountWindowOpen(firstVisitMs, nowMs, windowMs)) return { kind: 'expired' };
  return { kind: 'open', firstVisitMs, endsAtMs: firstVisitMs + windowMs, writeCookie: stored === null };
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
