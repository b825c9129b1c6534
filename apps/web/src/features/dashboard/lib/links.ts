import type { User } from '@warren/contract';

export interface QuickLink {
  to: string;
  icon: 'globe' | 'tools' | 'download' | 'card';
  title: string;
  text: string;
}

/** Quick links to set-up on the dashboard; WireGuard only for users with isWgSectionAvailable. */
export function setupLinks(user: Pick<User, 'isWgSectionAvailable'>): QuickLink[] {
  const links: QuickLink[] = [
    { to: '/server-locations', icon: 'globe', title: 'menu.serverLocations', text: 'dashboard.cards.locations' },
    { to: '/setup', icon: 'tools', title: 'menu.setup', text: 'dashboard.cards.setup' },
    { to: '/setup/downloads', icon: 'download', title: 'menu.downloads', text: 'dashboard.cards.downloads' },
    { to: '/setup/configuration-files', icon: 'tools', title: 'menu.configurationFiles', text: 'dashboard.cards.configurationFiles' },
    { to: '/setup/socks5-proxy', icon: 'tools', title: 'menu.socks5', text: 'dashboard.cards.socks5' },
  ];
  if (user.isWgSectionAvailable) links.push({ to: '/setup/wg', icon: 'tools', title: 'menu.wireguard', text: 'dashboard.cards.wireguard' });
  else links.push({ to: '/plans', icon: 'card', title: 'menu.plans', text: 'dashboard.cards.plans' });
  return links;
}
