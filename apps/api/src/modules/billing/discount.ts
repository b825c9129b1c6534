import { DISCOUNT_WINDOW_MS, COOKIES } from '@warren/contract';
import { hmac, safeEqual } from '../../lib/secrets.js';

/**
 * The discounted checkouts' one-day window (spec sections 2 and 9), kept by the server: the
 * first visit's time goes into the variant's cookie signed with the app secret, so the browser
 * can read it (the page's countdown and the redirect on a later visit) but cannot move it.
 * The 25 lists use a separate cookie from the 15 lists, as the spec says.
 */
export const DISCOUNT_COOKIES: Readonly<Record<string, string>> = {
  'discount-15': COOKIES.discount15,
  'discount-25': COOKIES.discount25,
};

export function isDiscountList(priceList: string): boolean {
  return Object.hasOwn(DISCOUNT_COOKIES, priceList);
}

export function discountCookieName(priceList: string): string | undefined {
  return Object.hasOwn(DISCOUNT_COOKIES, priceList) ? DISCOUNT_COOKIES[priceList] : undefined;
}

const payload = (cookie: string, firstVisitMs: number) => `discount-window:${cookie}:${firstVisitMs}`;

/** `<first visit ms>.<HMAC>`: the cookie's name is signed too, so a 15 cookie does not open the 25 list. */
export function signFirstVisit(secret: string, cookie: string, firstVisitMs: number): string {
  return `${firstVisitMs}.${hmac(secret, payload(cookie, firstVisitMs))}`;
}

/** The signed first visit, or null for a missing, altered, forged or future-dated value. */
export function readFirstVisit(
  secret: string,
  cookie: string,
  value: string | undefined,
  nowMs: number,
): number | null {
  const m = value ? /^(\d{10,16})\.([A-Za-z0-9_-]{43})$/.exec(value) : null;
  if (!m) return null;
  const ms = Number(m[1]);
  if (!safeEqual(m[2]!, hmac(secret, payload(cookie, ms)))) return null;
  return ms > nowMs ? null : ms;
}

export type DiscountWindow =
  | {
      state: 'open';
      firstVisitMs: number;
      endsAtMs: number;
      secondsLeft: number;
      /** a fresh first visit: the cookie must be written */ started: boolean;
    }
  | { state: 'closed' };

/**
 * Where a visitor stands: no valid cookie starts the window now (only when `start` is set: the
 * page's price list starts it, a payment never does); otherwise open until one day after it.
 */
export function discountWindow(
  firstVisitMs: number | null,
  nowMs: number,
  opts: { start: boolean; windowMs?: number },
): DiscountWindow {
  const windowMs = opts.windowMs ?? DISCOUNT_WINDOW_MS;
  if (firstVisitMs === null) {
    if (!opts.start) return { state: 'closed' };
    return {
      state: 'open',
      firstVisitMs: nowMs,
      endsAtMs: nowMs + windowMs,
      secondsLeft: Math.floor(windowMs / 1000),
      started: true,
    };
  }
  const endsAtMs = firstVisitMs + windowMs;
  if (nowMs >= endsAtMs) return { state: 'closed' };
  return { state: 'open', firstVisitMs, endsAtMs, secondsLeft: Math.floor((endsAtMs - nowMs) / 1000), started: false };
}
