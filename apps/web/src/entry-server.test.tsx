// @vitest-environment node
// The server renders in Node: no window, document, navigator or localStorage here, as on the server.
import { describe, expect, it } from 'vitest';
import type { PublicBrand } from '@warren/contract';
import en from '../public/assets/i18n/en.json';
import ru from '../public/assets/i18n/ru.json';
import zh from '../public/assets/i18n/zh.json';
import { loadPageData, renderPage as renderOrRedirect, type FirstRender } from './entry-server';
import { FALLBACK_BRAND } from './lib/brand';

const brand: PublicBrand = { ...FALLBACK_BRAND, logo: '/brand/warren-vpn.svg' };
const proxy: PublicBrand = { ...brand, id: 'burrow', productName: 'Burrow Proxy', kind: 'proxy' };
const translations = { en, ru, zh };

/** A page (null when not rendered); a redirect fails the test. */
function renderPage(...args: Parameters<typeof renderOrRedirect>): FirstRender | null {
  const out = renderOrRedirect(...args);
  if (out && 'redirect' in out) throw new Error(`redirected to ${out.redirect}`);
  return out;
}
/** The checkout's answers as the server gets them (server-data.ts), with the discount window the API reports. */
const checkoutData = (pathname: string, priceList: string, offerSecondsLeft: number | null) =>
  loadPageData(pathname, (path) =>
    Promise.resolve(
      (
        {
          '/api/billing/getCurrencies': { currencies: ['USD', 'EUR'], default: 'USD' },
          '/api/ip/info': { code: 'US', currency: 'USD' },
          '/api/billing/paymentMethods': { country: 'US', currency: 'USD', methods: [] },
          '/api/billing/getLandingPriceList': {
            currency: 'USD',
            priceList,
            promo: null,
            offerSecondsLeft,
            plans: [
              {
                tariffId: 3,
                key: '1-year',
                name: '1 year',
                periodDays: 365,
                isLifetime: false,
                isTrial: false,
                currency: 'USD',
                amount: 4499,
                listAmount: 5999,
                discountPercent: 25,
                monthlyAmount: 375,
                promo: null,
              },
            ],
          },
        } as Record<string, unknown>
      )[path.split('?')[0]!],
    ),
  );

describe('the server render of signed-out pages', () => {
  it('renders sign-in in the visitor language with the brand, its fields disabled until the app takes over', () => {
    expect(typeof window).toBe('undefined');
    const page = renderPage('/sign-in?ref=mail', brand, 'ru', translations)!;
    expect(page.title).toBe(`Warren VPN | ${ru.titles.signIn}`);
    expect(page.html).toContain(ru.auth.signIn.title);
    expect(page.html).toContain(ru.auth.signIn.submit);
    expect(page.html).toContain('Warren VPN');
    expect(page.html).toMatch(/<fieldset[^>]*disabled=""/);
    expect(page.html).toMatch(
      /<input[^>]*type="email"|<input[^>]*autoComplete="email"|<input[^>]*autocomplete="email"/i,
    );
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
    expect(page.state?.queries.map((q) => [q.queryKey, q.state.data])).toEqual([
      [['ip', 'info'], { code: 'DE', currency: 'EUR' }],
    ]);
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

  it('renders /checkout/ as /checkout, as the browser router matches it', () => {
    const page = renderPage('/checkout/', brand, 'en', translations)!;
    expect(page.html).toContain(en.checkout.title);
    expect(renderPage('/checkout-ru//', brand, 'en', translations)!.appLanguage).toBe('ru');
  });

  it("a discounted variant: with the server's open window, its discounted prices and the countdown, made for this visitor only; a closed window sends the visitor to the regular checkout in the variant's language", async () => {
    const open = renderPage(
      '/checkout-25',
      brand,
      'en',
      translations,
      await checkoutData('/checkout-25', 'discount-25', 86399),
    )!;
    expect(open.html).toContain('data-testid="discount-countdown"');
    expect(open.html).toMatch(/23:59:5\d/);
    expect(open.html).toContain('$44.99');
    expect(open.perVisitor).toBe(true);
    expect(
      renderOrRedirect('/checkout-25', brand, 'en', translations, await checkoutData('/checkout-25', 'default', null)),
    ).toEqual({ redirect: '/checkout' });
    // A Russian variant keeps its language and roubles (issue 23: it went to the English /checkout).
    expect(
      renderOrRedirect(
        '/checkout-ru-25/',
        brand,
        'en',
        translations,
        await checkoutData('/checkout-ru-25', 'default', null),
      ),
    ).toEqual({ redirect: '/checkout-ru' });
    expect(
      renderOrRedirect(
        '/checkout-ru-15',
        brand,
        'en',
        translations,
        await checkoutData('/checkout-ru-15', 'default', null),
      ),
    ).toEqual({ redirect: '/checkout-ru' });
    // Without the server's answer the page renders without prices and asks for them itself.
    const unanswered = renderPage('/checkout-25', brand, 'en', translations)!;
    expect(unanswered.html).not.toContain('discount-countdown');
    expect(unanswered.perVisitor).toBeUndefined();
    // Variants without a window are kept for everyone.
    expect(renderPage('/checkout', brand, 'en', translations)!.perVisitor).toBeUndefined();
  });
});
