// @vitest-environment node
// The server renders in Node: no window, document, navigator or localStorage here, as on the server.
import { describe, expect, it } from 'vitest';
import type { PublicBrand } from '@warren/contract';
import en from '../public/assets/i18n/en.json';
import ru from '../public/assets/i18n/ru.json';
import zh from '../public/assets/i18n/zh.json';
import { loadPageData, renderPage } from './entry-server';
import { FALLBACK_BRAND } from './lib/brand';

const brand: PublicBrand = { ...FALLBACK_BRAND, logo: '/brand/warren-vpn.svg' };
const proxy: PublicBrand = { ...brand, id: 'burrow', productName: 'Burrow Proxy', kind: 'proxy' };
const translations = { en, ru, zh };

describe('the server render of signed-out pages', () => {
  it('renders sign-in in the visitor language with the brand, its fields disabled until the app takes over', () => {
    expect(typeof window).toBe('undefined');
    const page = renderPage('/sign-in?ref=mail', brand, 'ru', translations)!;
    expect(page.title).toBe(`Warren VPN | ${ru.titles.signIn}`);
    expect(page.html).toContain(ru.auth.signIn.title);
    expect(page.html).toContain(ru.auth.signIn.submit);
    expect(page.html).toContain('Warren VPN');
    expect(page.html).toMatch(/<fieldset[^>]*disabled=""/);
    expect(page.html).toMatch(/<input[^>]*type="email"|<input[^>]*autoComplete="email"|<input[^>]*autocomplete="email"/i);
  });

  it('renders sign-up and forgot-pass, and the start page as sign-in', () => {
    expect(renderPage('/sign-up', brand, 'en', translations)!.html).toContain(en.auth.signUp.title);
    expect(renderPage('/forgot-pass', brand, 'zh', translations)!.title).toBe(`Warren VPN | ${zh.titles.forgotPass}`);
    expect(renderPage('/', brand, 'en', translations)!.html).toContain(en.auth.signIn.title);
  });

  it('renders the iOS pages, the -ru ones in Russian whatever the visitor language', () => {
    const download = renderPage('/ios-download', brand, 'en', translations)!;
    expect(download.html).toContain(en.ios.download.title);
    expect(download.lang).toBe('en');
    const update = renderPage('/ios-update-ru', brand, 'en', translations)!;
    expect(update.html).toContain(ru.ios.update.title);
    expect(update.title).toBe(`Warren VPN | ${ru.titles.iosUpdate}`);
    expect(update.lang).toBe('ru');
  });

  it('renders with the API answers it is given and hands them on as the query cache; none, no cache', async () => {
    expect(await loadPageData('/sign-in', () => Promise.reject(new Error('sign-in needs no data')))).toEqual([]);
    const data = [{ key: ['ip', 'info'], data: { code: 'DE', currency: 'EUR' } }];
    const page = renderPage('/sign-in', brand, 'en', translations, data)!;
    expect(page.state?.queries.map((q) => [q.queryKey, q.state.data])).toEqual([[['ip', 'info'], { code: 'DE', currency: 'EUR' }]]);
    expect(renderPage('/sign-in', brand, 'en', translations)!.state).toBeUndefined();
  });

  it('a checkout variant in a language of its own is rendered in it, as the app will show it on a first visit', () => {
    const page = renderPage('/checkout-ru', brand, 'en', translations)!;
    expect(page.appLanguage).toBe('ru');
    expect(page.lang).toBe('ru');
    expect(page.html).toContain(ru.checkout.title);
    expect(renderPage('/checkout', brand, 'zh', translations)!.appLanguage).toBe('zh');
  });

  it('says Proxy on proxy brands', () => {
    const page = renderPage('/sign-in', proxy, 'en', translations)!;
    expect(page.html).toContain('Burrow Proxy');
    expect(page.html).not.toMatch(/\bVPN\b/);
  });

  it('renders nothing for signed-in pages, unknown pages or a language without translations', () => {
    expect(renderPage('/dashboard', brand, 'en', translations)).toBeNull();
    expect(renderPage('/nope', brand, 'en', translations)).toBeNull();
    expect(renderPage('/sign-in', brand, 'zh', { en })).toBeNull();
  });
});
