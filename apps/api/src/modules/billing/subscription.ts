/**
 * Pure subscription arithmetic. A payment extends from max(now, current expiry) by the tariff's
 * period; lifetime has no expiry; a refund takes back exactly the period that payment added.
 */
export interface SubscriptionState {
  tariffKey: string;
  tariffName: string;
  expiresAt: Date | null;
}
export interface TariffInfo {
  key: string;
  name: string;
  periodDays: number | null;
  isLifetime: boolean;
  isFree: boolean;
}

export const FREE_STATE = (name = 'Free'): SubscriptionState => ({
  tariffKey: 'free-plan',
  tariffName: name,
  expiresAt: null,
});
const DAY_MS = 86_400_000;

export function isPaidActive(s: SubscriptionState, now: Date): boolean {
  if (s.tariffKey === 'free-plan') return false;
  return s.expiresAt === null || s.expiresAt > now;
}

export function extend(
  current: SubscriptionState,
  tariff: TariffInfo,
  now: Date,
): { next: SubscriptionState; periodStart: Date; periodEnd: Date | null } {
  if (tariff.isLifetime)
    return {
      next: { tariffKey: tariff.key, tariffName: tariff.name, expiresAt: null },
      periodStart: now,
      periodEnd: null,
    };
  // A lifetime subscriber who buys a period keeps the lifetime plan.
  if (current.tariffKey !== 'free-plan' && current.expiresAt === null)
    return { next: current, periodStart: now, periodEnd: now };
  const start =
    current.tariffKey !== 'free-plan' && current.expiresAt && current.expiresAt > now ? current.expiresAt : now;
  const end = new Date(start.getTime() + (tariff.periodDays ?? 0) * DAY_MS);
  return {
    next: { tariffKey: tariff.key, tariffName: tariff.name, expiresAt: end },
    periodStart: start,
    periodEnd: end,
  };
}

/** Takes back [periodStart, periodEnd); falls back to the free plan when nothing is left. */
export function revoke(
  current: SubscriptionState,
  period: { start: Date; end: Date | null },
  now: Date,
  freeName = 'Free',
): SubscriptionState {
  if (period.end === null) return FREE_STATE(freeName); // lifetime refunded
  if (current.tariffKey === 'free-plan' || current.expiresAt === null) return current;
  const length = period.end.getTime() - period.start.getTime();
  const expiresAt = new Date(current.expiresAt.getTime() - length);
  return expiresAt > now ? { ...current, expiresAt } : FREE_STATE(freeName);
}

export function isWithinMoneyBack(paidAt: Date, now: Date, windowDays: number): boolean {
  return now.getTime() - paidAt.getTime() <= windowDays * DAY_MS;
}
