import type { User } from '@warren/contract';
import { SETUP_PAGES } from '../../lib/setup-pages';

export interface MenuLink {
  key: string;
  labelKey: string;
  to: string;
  icon: 'dashboard' | 'locations' | 'features' | 'plans' | 'billing' | 'affiliate' | 'rewards' | 'profile';
  /** External (opens in a new tab). */
  href?: string;
  children?: MenuLink[];
}

/** The sidebar (spec section 2, logged-in shell). */
export function sidebarMenu(user: User | null, affiliatePortalUrl: string | null): MenuLink[] {
  const pages = (
    [
      'setup',
      'downloads',
      'config',
      'router',
      'socks5',
      'stealth',
      ...(user?.isWgSectionAvailable ? ['wg' as const] : []),
    ] as const
  ).map((key): MenuLink => ({ key, ...SETUP_PAGES[key], icon: 'features' }));
  const portal = user?.isPostAffiliateAvailable && affiliatePortalUrl ? affiliatePortalUrl : undefined;
  return [
    { key: 'dashboard', labelKey: 'menu.dashboard', to: '/dashboard', icon: 'dashboard' },
    { key: 'locations', labelKey: 'menu.serverLocations', to: '/server-locations', icon: 'locations' },
    { key: 'features', labelKey: 'menu.vpnFeatures', to: '/setup', icon: 'features', children: pages },
    { key: 'plans', labelKey: 'menu.plans', to: '/plans', icon: 'plans' },
    // Billing where customers look for it (as Proton VPN's dashboard does): the plan and its renewal, payments, receipts, money-back.
    { key: 'billing', labelKey: 'menu.subscription', to: '/subscription', icon: 'billing' },
    { key: 'affiliate', labelKey: 'menu.affiliate', to: '/affiliate', icon: 'affiliate', href: portal },
    { key: 'rewards', labelKey: 'menu.rewards', to: '/rewards', icon: 'rewards' },
    { key: 'profile', labelKey: 'menu.profile', to: '/profile', icon: 'profile' },
  ];
}
