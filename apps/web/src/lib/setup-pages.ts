/**
 * The VPN set-up pages: where each is and its name (a menu.* key). The sidebar and the dashboard's
 * quick links both list them, so a page moves or is renamed in one place.
 */
export const SETUP_PAGES = {
  setup: { to: '/setup', labelKey: 'menu.setup' },
  downloads: { to: '/setup/downloads', labelKey: 'menu.downloads' },
  config: { to: '/setup/configuration-files', labelKey: 'menu.configurationFiles' },
  router: { to: '/setup/router-configuration', labelKey: 'menu.routerConfiguration' },
  socks5: { to: '/setup/socks5-proxy', labelKey: 'menu.socks5' },
  stealth: { to: '/setup/stealth', labelKey: 'menu.stealth' },
  wg: { to: '/setup/wg', labelKey: 'menu.wireguard' },
} as const;
