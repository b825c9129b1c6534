import type { ComponentType } from 'react';
import type { RouteObject } from 'react-router';
import { CHECKOUT_ROUTES, CHECKOUT_VARIANTS, IOS_ROUTES, type Language } from '@warren/contract';
import { RootLayout } from './RootLayout';
import { PageLoader, RouteError } from './RouteError';
import type { RouteHandle } from './route-handle';
import { SignInPage } from '../features/auth/routes/SignInPage';
import { SignUpPage } from '../features/auth/routes/SignUpPage';
import { ForgotPassPage } from '../features/auth/routes/ForgotPassPage';
import { IosPage } from '../features/ios/routes/IosPage';
import { CheckoutPage } from '../features/checkout/routes/CheckoutPage';
import { type ApiGet, type PageData, type PageOutcome, checkoutOutcome, checkoutPageData } from './server-data';

// The server render's data shapes live with the code that loads them (server-data.ts); entry-server.tsx takes them from here.
export type { ApiGet, PageData, PageOutcome };

export interface ServerPage {
  Component: ComponentType;
  titleKey: string;
  /** A page in a fixed language (the -ru iOS pages), whatever the visitor's. */
  language?: Language;
  /** A page that switches the app to this language on a first visit (the -ru and -cn checkouts; main.tsx does the same before the take-over). */
  appLanguage?: Language;
  /**
   * The API answers the page shows on its first screen (prices...): the server asks for them
   * with the visitor's address and cookies, renders the page with them, and hands them to the
   * browser's query cache, so the first render there is the same page without a request.
   * Answers are checked (parsed) here as the page's own fetchers check them.
   */
  data?: (pathname: string, get: ApiGet) => Promise<PageData[]>;
  /** What the page's answers decide before it is rendered (server-data.ts checkoutOutcome). */
  outcome?: (pathname: string, data: readonly PageData[]) => PageOutcome;
}

/**
 * The pages the server renders before the app's code arrives: the signed-out ones a new
 * visitor lands on. They need no session and no data. Each has the shape router.tsx gives it
 * (root layout → page), so the browser's first render matches the HTML and takes it over
 * (server-routes.test.ts holds the two together). Signed-in pages cannot be rendered there:
 * the session lives in the browser's local storage (spec section 3).
 */
export const SERVER_PAGES: Record<string, ServerPage> = {
  '/': { Component: SignInPage, titleKey: 'titles.signIn' },
  '/sign-in': { Component: SignInPage, titleKey: 'titles.signIn' },
  '/sign-up': { Component: SignUpPage, titleKey: 'titles.signUp' },
  '/forgot-pass': { Component: ForgotPassPage, titleKey: 'titles.forgotPass' },
  // The checkout variants, with their prices in the visitor's currency (server-data.ts). The
  // discounted ones too: the server's price list answer starts their one-day window (its cookie
  // goes with the page) or finds it closed, and then the visitor is sent to /checkout at once.
  ...Object.fromEntries(
    CHECKOUT_ROUTES.map((p): [string, ServerPage] => [
      p,
      {
        Component: CheckoutPage,
        titleKey: 'titles.checkout',
        data: checkoutPageData,
        outcome: checkoutOutcome,
        appLanguage: CHECKOUT_VARIANTS[p]?.language,
      },
    ]),
  ),
  // The same title keys and languages as router.tsx gives them (server-routes.test.ts holds them together).
  ...Object.fromEntries(
    IOS_ROUTES.map((p): [string, ServerPage] => [
      p,
      {
        Component: IosPage,
        titleKey: p.includes('update') ? 'titles.iosUpdate' : 'titles.iosDownload',
        language: p.endsWith('-ru') ? 'ru' : undefined,
      },
    ]),
  ),
};

export function serverRoutes(): RouteObject[] {
  return [
    {
      id: 'root',
      Component: RootLayout,
      HydrateFallback: PageLoader,
      ErrorBoundary: RouteError,
      children: Object.entries(SERVER_PAGES).map(([path, page]): RouteObject => {
        const handle: RouteHandle = { titleKey: page.titleKey, language: page.language };
        return path === '/'
          ? { index: true, Component: page.Component, handle }
          : { path: path.slice(1), Component: page.Component, handle };
      }),
    },
  ];
}
