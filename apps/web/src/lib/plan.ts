import type { TFunction } from 'i18next';
import { FREE_TARIFF_KEY, type User } from '@warren/contract';
import type { DeviceType } from './device';

/** Spec section 3: tariffKey free-plan marks a free user. */
export function isFreeUser(user: Pick<User, 'subscriptionData'> | null | undefined): boolean {
  return !!user && user.subscriptionData.tariffKey === FREE_TARIFF_KEY;
}

export interface PlanLine {
  name: string;
  /** What follows the plan name: the status badge, or the "Upgrade VPN" button. */
  trailing: 'badge' | 'upgrade';
}

/**
 * The plan line (spec section 2): desktop shows the plan name, then a status badge for paid
 * plans or an Upgrade VPN button for the free plan; mobile shows the name and the badge
 * (the floating upgrade button is the mobile prompt).
 */
export function planLine(user: Pick<User, 'subscriptionData'>, deviceType: DeviceType): PlanLine {
  const trailing = deviceType === 'desktop' && isFreeUser(user) ? 'upgrade' : 'badge';
  return { name: user.subscriptionData.tariffName, trailing };
}

/** A plan's name in the UI language, by its key; the API's (English) name when we have no translation. */
export function planDisplayName(t: TFunction, key: string, name: string): string {
  return t(`payment.planNames.${key}`, { defaultValue: name });
}

/** Pages where the floating upgrade button never shows. */
const NO_FLOATING_UPGRADE = ['/thank-you', '/plans'];

/** The floating upgrade button: free users on non-desktop devices, except on /thank-you and /plans. */
export function showFloatingUpgrade(opts: {
  user: Pick<User, 'subscriptionData'> | null;
  deviceType: DeviceType;
  pathname: string;
}): boolean {
  if (!isFreeUser(opts.user) || opts.deviceType === 'desktop') return false;
  const path = opts.pathname.replace(/\/+$/, '') || '/';
  return !NO_FLOATING_UPGRADE.some((p) => path === p || path.startsWith(`${p}/`));
}
