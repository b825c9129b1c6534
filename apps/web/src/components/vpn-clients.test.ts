import { describe, expect, it } from 'vitest';
import { DOWNLOAD_PLATFORMS } from '@warren/contract';
import en from '../../public/assets/i18n/en.json';
import ru from '../../public/assets/i18n/ru.json';
import zh from '../../public/assets/i18n/zh.json';
import { CLIENTS, clientsFor, configPageOf } from './vpn-clients';

/** The official pages only: the WireGuard project, Apple's and Google's store listings of its app, OpenVPN, Tunnelblick. */
const OFFICIAL =
  /^https:\/\/(www\.wireguard\.com\/install\/|download\.wireguard\.com\/windows-client\/|apps\.apple\.com\/us\/app\/wireguard\/id(1441195209|1451685025)$|play\.google\.com\/store\/apps\/details\?id=com\.wireguard\.android$|openvpn\.net\/client\/$|tunnelblick\.net\/$)/;

describe('official VPN clients', () => {
  it('every system has a WireGuard client first, and every link is an official page', () => {
    for (const p of DOWNLOAD_PLATFORMS) {
      const list = clientsFor(p);
      expect(list.length, p).toBeGreaterThan(0);
      expect(list[0]!.protocol, p).toBe('wireguard');
    }
    for (const c of Object.values(CLIENTS)) if (c.url) expect(c.url).toMatch(OFFICIAL);
  });

  it('per system: the WireGuard listing for that system, OpenVPN Connect, Tunnelblick on the Mac, the distribution packages on Linux', () => {
    expect(clientsFor('ios').map((c) => c.url)).toEqual([
      'https://apps.apple.com/us/app/wireguard/id1441195209',
      'https://openvpn.net/client/',
    ]);
    expect(clientsFor('mac').map((c) => c.key)).toEqual(['wgMac', 'openvpnConnect', 'tunnelblick']);
    expect(clientsFor('windows')[0]!.url).toBe('https://download.wireguard.com/windows-client/wireguard-installer.exe');
    expect(clientsFor('android-tv').map((c) => c.key)).toEqual(['wgAndroid']);
    expect(clientsFor('linux').map((c) => c.url)).toEqual(['https://www.wireguard.com/install/', null]);
  });

  it('without the WireGuard page OpenVPN comes first; each client points to the page with its configuration', () => {
    expect(clientsFor('windows', { wireguardFirst: false }).map((c) => c.key)).toEqual(['openvpnConnect', 'wgWindows']);
    expect(configPageOf(CLIENTS.wgIos)).toBe('/setup/wg');
    expect(configPageOf(CLIENTS.tunnelblick)).toBe('/setup/configuration-files');
  });

  it('every client has its three steps and its link text in en, ru and zh', () => {
    for (const [lang, d] of Object.entries({ en, ru, zh }) as [string, typeof en][]) {
      const texts = d.clients as unknown as Record<string, Record<string, string>>;
      for (const c of Object.values(CLIENTS)) {
        for (const n of [1, 2, 3]) expect(texts[c.key]?.[`step${n}`], `${lang} ${c.key} step${n}`).toBeTruthy();
        expect(texts.link?.[c.link], `${lang} link ${c.link}`).toBeTruthy();
      }
    }
  });
});
