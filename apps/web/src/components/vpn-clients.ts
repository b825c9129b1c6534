import type { DownloadPlatform } from '@warren/contract';

/**
 * The official clients that work with Warren's configurations. Warren has no apps of its own:
 * every link is the client's own download or store page (a brand with its own apps lists them
 * in config/downloads.json). Steps are i18n keys `clients.<key>.step1..3`.
 */
export type ClientKey =
  'wgWindows' | 'wgMac' | 'wgIos' | 'wgAndroid' | 'wgLinux' | 'openvpnConnect' | 'tunnelblick' | 'openvpnLinux';

export interface VpnClient {
  key: ClientKey;
  /** The client's name as its makers spell it (not translated). */
  name: string;
  protocol: 'wireguard' | 'openvpn';
  /** Official page; null when the client comes from the distribution's packages. */
  url: string | null;
  /** How the link reads: a store listing, an installer, or a project page. */
  link: 'appStore' | 'macAppStore' | 'googlePlay' | 'installer' | 'website';
}

export const WIREGUARD_INSTALL_PAGE = 'https://www.wireguard.com/install/';
export const WIREGUARD_IOS_APP_STORE = 'https://apps.apple.com/us/app/wireguard/id1441195209';

export const CLIENTS: Record<ClientKey, VpnClient> = {
  wgWindows: {
    key: 'wgWindows',
    name: 'WireGuard',
    protocol: 'wireguard',
    url: 'https://download.wireguard.com/windows-client/wireguard-installer.exe',
    link: 'installer',
  },
  wgMac: {
    key: 'wgMac',
    name: 'WireGuard',
    protocol: 'wireguard',
    url: 'https://apps.apple.com/us/app/wireguard/id1451685025',
    link: 'macAppStore',
  },
  wgIos: { key: 'wgIos', name: 'WireGuard', protocol: 'wireguard', url: WIREGUARD_IOS_APP_STORE, link: 'appStore' },
  wgAndroid: {
    key: 'wgAndroid',
    name: 'WireGuard',
    protocol: 'wireguard',
    url: 'https://play.google.com/store/apps/details?id=com.wireguard.android',
    link: 'googlePlay',
  },
  wgLinux: {
    key: 'wgLinux',
    name: 'WireGuard (wireguard-tools)',
    protocol: 'wireguard',
    url: WIREGUARD_INSTALL_PAGE,
    link: 'website',
  },
  openvpnConnect: {
    key: 'openvpnConnect',
    name: 'OpenVPN Connect',
    protocol: 'openvpn',
    url: 'https://openvpn.net/client/',
    link: 'website',
  },
  tunnelblick: {
    key: 'tunnelblick',
    name: 'Tunnelblick',
    protocol: 'openvpn',
    url: 'https://tunnelblick.net/',
    link: 'website',
  },
  openvpnLinux: { key: 'openvpnLinux', name: 'OpenVPN (openvpn)', protocol: 'openvpn', url: null, link: 'website' },
};

const BY_PLATFORM: Record<DownloadPlatform, ClientKey[]> = {
  windows: ['wgWindows', 'openvpnConnect'],
  mac: ['wgMac', 'openvpnConnect', 'tunnelblick'],
  ios: ['wgIos', 'openvpnConnect'],
  android: ['wgAndroid', 'openvpnConnect'],
  'android-tv': ['wgAndroid'],
  linux: ['wgLinux', 'openvpnLinux'],
};

/** The clients for one operating system; WireGuard first when the user has the WireGuard page, else OpenVPN first. */
export function clientsFor(platform: DownloadPlatform, { wireguardFirst = true } = {}): VpnClient[] {
  const list = BY_PLATFORM[platform].map((k) => CLIENTS[k]);
  return wireguardFirst
    ? list
    : [...list.filter((c) => c.protocol === 'openvpn'), ...list.filter((c) => c.protocol === 'wireguard')];
}

/** Where the user gets the configuration a client imports. */
export const configPageOf = (c: VpnClient) => (c.protocol === 'wireguard' ? '/setup/wg' : '/setup/configuration-files');
