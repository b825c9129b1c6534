import type { User } from '@warren/contract';
import { SETUP_PAGES } from '../../../lib/setup-pages';

export interface QuickLink {
  to: string;
  icon: 'globe' | 'tools' | 'download' | 'card';
  title: string;
  text: string;
}

/** Quick links to set-up on the dashboard; WireGuard only for users with isWgSectionAvailable. */
export function setupLinks(user: Pick<User, 'isWgSectionAvailable'>): QuickLink[] {
  const page = (key: keyof typeof SETUP_PAGES, icon: QuickLink['icon'], text: string): QuickLink => ({
    to: SETUP_PAGES[key].to,
    icon,
    title: SETUP_PAGES[key].labelKey,
    text,
  });
  const links: QuickLink[] = [
    { to: '/server-locations', icon: 'globe', title: 'menu.serverLocations', text: 'dashboard.cards.locations' },
    page('setup', 'tools', 'dashboard.cards.setup'),
    page('downloads', 'download', 'dashboard.cards.downloads'),
    page('config', 'tools', 'dashboard.cards.configurationFiles'),
    page('socks5', 'tools', 'dashboard.cards.socks5'),
    page('stealth', 'tools', 'dashboard.cards.stealth'),
  ];
  if (user.isWgSectionAvailable) links.push(page('wg', 'tools', 'dashboard.cards.wireguard'));
  else links.push({ to: '/plans', icon: 'card', title: 'menu.plans', text: 'dashboard.cards.plans' });
  return links;
}
