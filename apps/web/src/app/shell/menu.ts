import type { User } from '@warren/contract';

export interface MenuLink {
  key: string;
  labelKey: string;
  to: string;
  icon: 'dashboard' | 'locations' | 'features' | 'plans' | 'affiliate' | 'rewards' | 'profile';
  /** External (opens in a new tab). */
  href?: string;
  children?: MenuLink[];
}

/** The sidebar (spec section 2, logged-in shell). */
export function sidebarMenu(user: User | null, affiliatePortalUrl: string | null): MenuLink[] {
  const features: MenuLink[] = [
    { key: 'setup', labelKey: 'menu.setup', to: '/setup', icon: 'features' },
    { key: 'downloads', labelKey: 'menu.downloads', to: '/setup/downloads', icon: 'features' },
    { key: 'config', labelKey: 'menu.configurationFiles', to: '/setup/configuration-files', icon: 'features' },
    { key: 'router', labelKey: 'menu.routerConfiguration', to: '/setup/router-configuration', icon: 'features' },
    { key: 'socks5', labelKey: 'menu.socks5', to: '/setup/socks5-proxy', icon: 'features' },
  ];
  if (user?.isWgSectionAvailable) features.push({ key: 'wg', labelKey: 'menu.wireguard', to: '/setup/wg', icon: 'features' });
  const portal = user?.isPostAffiliateAvailable && affiliatePortalUrl ? affiliatePortalUrl : undefined;
  return [
    { key: 'dashboard', labelKey: 'menu.dashboard', to: '/dashboard', icon: 'dashboard' },
    { key: 'locations', labelKey: 'menu.serverLocations', to: '/server-locations', icon: 'locations' },
    { key: 'features', labelKey: 'menu.vpnFeatures', to: '/setup', icon: 'features', children: features },
    { key: 'plans', labelKey: 'menu.plans', to: '/plans', icon: 'plans' },
    { key: 'affiliate', labelKey: 'menu.affiliate', to: '/affiliate', icon: 'affiliate', href: portal },
    { key: 'rewards', labelKey: 'menu.rewards', to: '/rewards', icon: 'rewards' },
    { key: 'profile', labelKey: 'menu.profile', to: '/profile', icon: 'profile' },
  ];
}
