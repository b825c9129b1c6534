import type { PlanInfo } from '@warren/contract';

/** How long the thank-you page waits for the provider's confirmation before saying so (stated on the page). */
export const CONFIRM_TIMEOUT_MS = 2 * 60_000;
/** How often it asks meanwhile. */
export const CONFIRM_POLL_MS = 3000;

export type ConfirmState = 'waiting' | 'paid' | 'failed' | 'timeout';

/**
 * What the thank-you page shows, from the member's last checkout: paid (or nothing left to
 * wait for), failed (declined or cancelled at the provider), still waiting, or, once the
 * deadline has passed with the payment still open at the provider, timed out. It never waits
 * forever: "Confirming your payment…" always ends with an outcome and a way on.
 */
export function confirmState(
  info: Pick<PlanInfo, 'paymentStatus' | 'lastPayment'> | undefined,
  nowMs: number,
  deadlineMs: number,
): ConfirmState {
  const last = info?.lastPayment;
  const pending = info ? (last ? last.status === 'pending' : info.paymentStatus === 'processing') : true;
  if (last?.status === 'failed') return 'failed';
  if (!pending) return 'paid';
  return nowMs >= deadlineMs ? 'timeout' : 'waiting';
}
