import { describe, expect, it } from 'vitest';
import { STEALTH_APPS, STEALTH_PLATFORMS, stealthPlatformOf } from './apps';

const SUB = 'https://vpn.example.com/api/sub/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde';

describe('stealth apps', () => {
  it("every platform has apps, every store link is https on the maker's or the store's host", () => {
    for (const p of STEALTH_PLATFORMS) {
      expect(STEALTH_APPS[p].length, p).toBeGreaterThan(0);
      for (const app of STEALTH_APPS[p]) {
        expect(app.stores.length, app.id).toBeGreaterThan(0);
        for (const s of app.stores)
          expect(['play.google.com', 'apps.apple.com', 'github.com']).toContain(new URL(s.url).host);
        for (const s of app.stores) expect(new URL(s.url).protocol).toBe('https:');
      }
    }
  });

  it('"Add to app" links carry the subscription URL in the form each app reads', () => {
    const add = (p: keyof typeof STEALTH_APPS, id: string) =>
      STEALTH_APPS[p].find((a) => a.id === id)!.addLink!(SUB, 'Warren VPN');
    const ng = new URL(add('android', 'v2rayng'));
    expect([ng.protocol, ng.host]).toEqual(['v2rayng:', 'install-sub']);
    expect(ng.searchParams.get('url')).toBe(SUB);
    expect(ng.searchParams.get('name')).toBe('Warren VPN');
    expect(add('android', 'hiddify')).toBe(`hiddify://import/${SUB}#Warren%20VPN`);
    expect(add('ios', 'streisand')).toBe(`streisand://import/${SUB}#Warren%20VPN`);
    const rocket = add('ios', 'shadowrocket');
    expect(rocket.startsWith('sub://')).toBe(true);
    expect(atob(rocket.slice(6))).toBe(SUB);
  });

  it('an Android TV gets the Android apps', () => {
    expect(stealthPlatformOf('android-tv')).toBe('android');
    expect(stealthPlatformOf('ios')).toBe('ios');
  });
});
