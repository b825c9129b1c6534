import { specialOfferSecondsLeft, type PlanInfo } from '@warren/contract';

export interface BannerInput {
  planInfo: Pick<PlanInfo, 'payments'> | null | undefined;
  nowMs: number;
  /** Payment ids whose banner the user closed. */
  dismissed: readonly string[];
  pathname: string;
}

/**
 * The special-offer banner (spec section 4): shown for the single succeeded first payment of
 * the monthly plan during 48 h; hidden under 60 s left, once closed for that payment and on
 * /thank-you. A plan change brings a new payments list (re-fetched), which ends it too.
 * Returns the seconds left, or null when hidden.
 */
export function specialOfferBanner({
  planInfo,
  nowMs,
  dismissed,
  pathname,
}: BannerInput): { paymentId: string; secondsLeft: number } | null {
  if (!planInfo || pathname.replace(/\/+$/, '') === '/thank-you') return null;
  const succeeded = planInfo.payments.filter((p) => p.status === 'succeeded');
  // A refund counts as a payment too: a refunded month never qualifies.
  if (succeeded.length !== planInfo.payments.length) return null;
  const secondsLeft = specialOfferSecondsLeft(succeeded, nowMs);
  const payment = succeeded[0];
  if (secondsLeft === null || !payment || dismissed.includes(payment.id)) return null;
  return { paymentId: payment.id, secondsLeft };
}

/** Desktop copy shows whole hours remaining (floor of seconds / 3600). */
export function hoursLeft(seconds: number): number {
  return Math.floor(seconds / 3600);
}

const DISMISSED_KEY = 'specialOfferClosed';

export function readDismissedOffers(): string[] {
  try {
    const raw = window.localStorage.getItem(DISMISSED_KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : [];
    return Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === 'string').slice(-20) : [];
  } catch {
    return [];
  }
}

export function dismissOffer(paymentId: string): string[] {
  const next = [...readDismissedOffers().filter((id) => id !== paymentId), paymentId];
  try {
    window.localStorage.setItem(DISMISSED_KEY, JSON.stringify(next));
  } catch {
    /* remembered for this page only */
  }
  return next;
}
