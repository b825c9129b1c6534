/**
 * Switching plans (issue 23), pure: what a move from the current plan to another period costs.
 *
 * The rule, as Proton does it:
 * - To a longer period (1 Month → 1 Year): now. The unused part of what was paid is credited pro
 *   rata against the new plan's regular price and the difference is charged; the new period
 *   starts at the moment of the quote (the payment's creation), so a checkout paid later still
 *   matches the credit it was quoted with. No second period runs beside the first: the payments
 *   credited end there.
 * - To a shorter period (1 Year → 1 Month): at the next renewal. Nothing is charged now; the plan
 *   runs to its paid-until, then the renewal charges the shorter plan. Shown as scheduled and
 *   cancellable. Needs auto-renew with a saved method (otherwise there is no renewal to change:
 *   the member picks the shorter plan when they buy next).
 *
 * The money, in integer minor units of the switch's currency:
 * - Each live paid period (an applied payment not refunded, not credited before) is clipped to
 *   [now, paid-until). If it was paid in the switch's currency and moved money, its unused part is
 *   credited at value × unusedMs / lengthMs, rounded DOWN to the minor unit (BigInt, no floats):
 *   the customer is never credited a fraction of a unit they did not pay.
 * - The value of a period is what was paid for it; for an earlier switch, the plan's price before
 *   its credit (the period is worth the whole plan, half of it paid by the credit).
 * - Unused time that is not credited as money (a support grant, a period paid in another currency,
 *   time carried by an earlier switch) carries over as time: it is added after the new period.
 * - charge = price − credit. A credit that would cover the whole price is refused (the customer
 *   would be owed money; support handles it): in practice a longer period always costs more.
 * - Shown before paying: the options list each longer period's price, credit and charge (the
 *   /subscription page shows the price, the credit line and what is charged today before the
 *   checkout; SwitchPlanCard), the checkout charges exactly the
 *   quoted amount (a quote that moved is refused), and the receipt and its mail print the credit.
 *
 * The decision on the money-back of a switch (issue 23 leftover): it UNDOES the switch. The money
 * charged goes back; of the new period, only what that money bought is taken back, not the part
 * the credit paid for: that part is the credited periods' unused time at the quote, and the member
 * is back on the plan they switched from with the paid-until they had (moved by whatever came
 * after). Before, the refund took back the whole new period, so the credited days were lost: money
 * the member had paid for the old plan and never got back (switchRefundTakesBack).
 */

export const DAY_MS = 86_400_000;

export interface SwitchTariff {
  id: number;
  key: string;
  periodDays: number | null;
  isFree: boolean;
  isLifetime: boolean;
  isTrial: boolean;
}

/** An applied payment's period that is still running or still to come. */
export interface LivePeriod {
  /** What the period is worth, in `currency` minor units (what was paid; 0 for a support grant). */
  valueMinor: number;
  currency: string;
  start: Date;
  end: Date;
}

export interface SwitchInput {
  now: Date;
  current: SwitchTariff;
  /** The member's paid-until (null: free or lifetime). */
  expiresAt: Date | null;
  target: SwitchTariff;
  /** The target's regular price in `currency` (the member's regular price list). */
  targetPriceMinor: number;
  /** The switch's currency: the currency the member last paid in. */
  currency: string;
  periods: readonly LivePeriod[];
  /** Auto-renew is on with a saved method that can be charged again. */
  renews: boolean;
}

export type SwitchRefusal =
  | 'not-active' // free, expired
  | 'lifetime' // a lifetime plan has nothing to switch
  | 'same-plan'
  | 'not-switchable' // the target is free, lifetime, a trial or has no period
  | 'current-not-switchable' // the current plan is a trial or has no period
  | 'no-renewal' // a shorter period needs a renewal to take effect
  | 'credit-covers'; // the credit would cover the whole price

export type SwitchQuote =
  | {
      kind: 'now';
      currency: string;
      priceMinor: number;
      creditMinor: number;
      chargeMinor: number;
      /** Unused time carried over as time (not credited). */
      carriedMs: number;
      periodStart: Date;
      /** The new paid-until: start + the target's period + the carried time. */
      periodEnd: Date;
    }
  | { kind: 'scheduled'; currency: string; effectiveAt: Date; nextChargeMinor: number }
  | { kind: 'refused'; reason: SwitchRefusal };

const switchable = (t: SwitchTariff) => !t.isFree && !t.isLifetime && !t.isTrial && !!t.periodDays;

/** floor(a × b / c) for non-negative integers, exactly. */
export function mulDivFloor(a: number, b: number, c: number): number {
  if (c <= 0) return 0;
  return Number((BigInt(Math.trunc(a)) * BigInt(Math.trunc(b))) / BigInt(Math.trunc(c)));
}

/** The credit for the unused part of the live periods, and the unused time that is not credited. */
export function unusedCredit(
  periods: readonly LivePeriod[],
  now: Date,
  expiresAt: Date,
  currency: string,
): { creditMinor: number; creditedMs: number; carriedMs: number } {
  const from = now.getTime();
  const to = expiresAt.getTime();
  let creditMinor = 0;
  let creditedMs = 0;
  // In time order, each instant counted once: two records covering the same days never credit them twice.
  let cursor = from;
  for (const p of [...periods].sort((a, b) => a.start.getTime() - b.start.getTime())) {
    const start = p.start.getTime();
    const end = p.end.getTime();
    const length = end - start;
    // Clipped to what is left of the plan: a period moved by a refund since is never credited beyond the paid-until.
    const s = Math.max(start, cursor);
    const unused = Math.min(end, to) - s;
    if (unused <= 0 || length <= 0) continue;
    cursor = s + unused;
    if (p.currency !== currency || p.valueMinor <= 0) continue;
    creditMinor += mulDivFloor(p.valueMinor, unused, length);
    creditedMs += unused;
  }
  const left = Math.max(0, to - from);
  return { creditMinor, creditedMs, carriedMs: Math.max(0, left - creditedMs) };
}

export function quoteSwitch(i: SwitchInput): SwitchQuote {
  if (i.current.isLifetime) return { kind: 'refused', reason: 'lifetime' };
  if (i.current.isFree || !i.expiresAt || i.expiresAt <= i.now) return { kind: 'refused', reason: 'not-active' };
  if (i.current.id === i.target.id) return { kind: 'refused', reason: 'same-plan' };
  if (!switchable(i.target)) return { kind: 'refused', reason: 'not-switchable' };
  if (!switchable(i.current)) return { kind: 'refused', reason: 'current-not-switchable' };
  const from = i.current.periodDays!;
  const to = i.target.periodDays!;
  if (to === from) return { kind: 'refused', reason: 'same-plan' };
  if (to < from) {
    if (!i.renews) return { kind: 'refused', reason: 'no-renewal' };
    return { kind: 'scheduled', currency: i.currency, effectiveAt: i.expiresAt, nextChargeMinor: i.targetPriceMinor };
  }
  const { creditMinor, carriedMs } = unusedCredit(i.periods, i.now, i.expiresAt, i.currency);
  const chargeMinor = i.targetPriceMinor - creditMinor;
  if (chargeMinor < 1) return { kind: 'refused', reason: 'credit-covers' };
  return {
    kind: 'now',
    currency: i.currency,
    priceMinor: i.targetPriceMinor,
    creditMinor,
    chargeMinor,
    carriedMs,
    periodStart: i.now,
    periodEnd: new Date(i.now.getTime() + to * DAY_MS + carriedMs),
  };
}

/**
 * What the money-back of an applied switch takes back, in ms from the end of the time the member
 * holds (see the decision above): the new period less the time its credit stood for. The credited
 * time is the paid-until at the quote (`basisExpires`) less the quote instant less the time that
 * carried over as time (it was added after the new period and is not taken back either).
 */
export function switchRefundTakesBack(s: { start: Date; end: Date; basisExpires: Date; carriedMs: number }): number {
  const length = s.end.getTime() - s.start.getTime();
  const creditedMs = Math.max(0, s.basisExpires.getTime() - s.start.getTime() - Math.max(0, s.carriedMs));
  return Math.max(0, length - creditedMs);
}
