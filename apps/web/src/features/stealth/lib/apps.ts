import type { DownloadPlatform } from '@warren/contract';

/**
 * The apps that import the stealth subscription, per platform: where to get them (store pages or
 * the makers' release pages, always https) and, where the app has one, the link that adds the
 * subscription in one tap ("Add to app"). Schemes as the apps document them (v2rayNG install-sub,
 * Hiddify import, Streisand import, Shadowrocket sub:// with the URL in base64).
 */
export type StealthPlatform = 'android' | 'ios' | 'windows' | 'mac' | 'linux';
export const STEALTH_PLATFORMS: readonly StealthPlatform[] = ['android', 'ios', 'windows', 'mac', 'linux'];

export interface StealthApp {
  id: string;
  name: string;
  /** Where to get it: label and https URL. */
  stores: { label: 'googlePlay' | 'appStore' | 'github'; url: string }[];
  /** One tap to add the subscription; absent: paste the URL in the app. */
  addLink?: (subscriptionUrl: string, title: string) => string;
  /** The app costs money in its store. */
  paid?: boolean;
}

const base64 = (s: string) => btoa(String.fromCharCode(...new TextEncoder().encode(s)));

const HIDDIFY_RELEASES = 'https://github.com/hiddify/hiddify-app/releases/latest';
const hiddify = (stores: StealthApp['stores']): StealthApp => ({
  id: 'hiddify',
  name: 'Hiddify',
  stores,
  addLink: (url, title) => `hiddify://import/${url}#${encodeURIComponent(title)}`,
});

export const STEALTH_APPS: Record<StealthPlatform, StealthApp[]> = {
  android: [
    {
      id: 'v2rayng',
      name: 'v2rayNG',
      stores: [
        { label: 'googlePlay', url: 'https://play.google.com/store/apps/details?id=com.v2ray.ang' },
        { label: 'github', url: 'https://github.com/2dust/v2rayNG/releases/latest' },
      ],
      addLink: (url, title) => `v2rayng://install-sub?url=${encodeURIComponent(url)}&name=${encodeURIComponent(title)}`,
    },
    hiddify([
      { label: 'googlePlay', url: 'https://play.google.com/store/apps/details?id=app.hiddify.com' },
      { label: 'github', url: HIDDIFY_RELEASES },
    ]),
  ],
  ios: [
    {
      id: 'streisand',
      name: 'Streisand',
      stores: [{ label: 'appStore', url: 'https://apps.apple.com/app/streisand/id6450534064' }],
      addLink: (url, title) => `streisand://import/${url}#${encodeURIComponent(title)}`,
    },
    hiddify([{ label: 'appStore', url: 'https://apps.apple.com/app/hiddify-proxy-vpn/id6596777532' }]),
    {
      id: 'shadowrocket',
      name: 'Shadowrocket',
      stores: [{ label: 'appStore', url: 'https://apps.apple.com/app/shadowrocket/id932747118' }],
      addLink: (url) => `sub://${base64(url)}`,
      paid: true,
    },
  ],
  windows: [
    hiddify([{ label: 'github', url: HIDDIFY_RELEASES }]),
    {
      id: 'v2rayn',
      name: 'v2rayN',
      stores: [{ label: 'github', url: 'https://github.com/2dust/v2rayN/releases/latest' }],
    },
  ],
  mac: [
    hiddify([{ label: 'github', url: HIDDIFY_RELEASES }]),
    {
      id: 'v2rayn',
      name: 'v2rayN',
      stores: [{ label: 'github', url: 'https://github.com/2dust/v2rayN/releases/latest' }],
    },
  ],
  linux: [
    hiddify([{ label: 'github', url: HIDDIFY_RELEASES }]),
    {
      id: 'v2rayn',
      name: 'v2rayN',
      stores: [{ label: 'github', url: 'https://github.com/2dust/v2rayN/releases/latest' }],
    },
  ],
};

/** The visitor's platform among those with stealth apps (an Android TV gets the Android apps). */
export function stealthPlatformOf(p: DownloadPlatform): StealthPlatform {
  return p === 'android-tv' ? 'android' : p;
}
