import type { PublicBrand } from '@warren/contract';
import { getBrand } from './brand';

type AnalyticsWindow = Window & {
  dataLayer?: unknown[];
  gtag?: (...args: unknown[]) => void;
  hj?: (...args: unknown[]) => void;
};

const KINDS = new Set(['analytics', 'tag-manager', 'web-analytics', 'session-recording']);

/** Whether this brand runs any analytics script (brand registry `scripts`). */
export function runsAnalytics(brand: Pick<PublicBrand, 'scripts'> = getBrand()): boolean {
  return brand.scripts.some((s) => KINDS.has(s.kind));
}

/**
 * Spec section 4: each login or sign-up identifies the user in analytics; sign-out clears it.
 * Only the account's id is sent, never the email. The tag manager's queue (dataLayer) is
 * created when missing: it replays what was queued once its script has loaded; gtag and
 * Hotjar are called when present.
 */
export function identifyUser(
  userId: number | string,
  brand: Pick<PublicBrand, 'scripts'> = getBrand(),
  w: AnalyticsWindow = window,
): void {
  if (!runsAnalytics(brand)) return;
  const id = String(userId);
  (w.dataLayer ??= []).push({ event: 'identify', userId: id });
  w.gtag?.('set', { user_id: id });
  w.hj?.('identify', id, {});
}

export function clearAnalyticsUser(
  brand: Pick<PublicBrand, 'scripts'> = getBrand(),
  w: AnalyticsWindow = window,
): void {
  if (!runsAnalytics(brand)) return;
  (w.dataLayer ??= []).push({ event: 'logout', userId: null });
  w.gtag?.('set', { user_id: null });
  w.hj?.('identify', null, {});
}
