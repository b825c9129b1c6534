import type { ComponentType } from 'react';
import type { RouteObject } from 'react-router';
import { RootLayout } from './RootLayout';
import { PageLoader, RouteError } from './RouteError';
import type { RouteHandle } from './route-handle';
import { SignInPage } from '../features/auth/routes/SignInPage';
import { SignUpPage } from '../features/auth/routes/SignUpPage';
import { ForgotPassPage } from '../features/auth/routes/ForgotPassPage';

/**
 * The pages the server renders before the app's code arrives: the signed-out ones a new
 * visitor lands on. They need no session and no data. Each has the shape router.tsx gives it
 * (root layout → page), so the browser's first render matches the HTML and takes it over
 * (server-routes.test.ts holds the two together). Signed-in pages cannot be rendered there:
 * the session lives in the browser's local storage (spec section 3).
 */
export const SERVER_PAGES: Record<string, { Component: ComponentType; titleKey: string }> = {
  '/': { Component: SignInPage, titleKey: 'titles.signIn' },
  '/sign-in': { Component: SignInPage, titleKey: 'titles.signIn' },
  '/sign-up': { Component: SignUpPage, titleKey: 'titles.signUp' },
  '/forgot-pass': { Component: ForgotPassPage, titleKey: 'titles.forgotPass' },
};

export function serverRoutes(): RouteObject[] {
  return [
    {
      id: 'root',
      Component: RootLayout,
      HydrateFallback: PageLoader,
      ErrorBoundary: RouteError,
      children: Object.entries(SERVER_PAGES).map(([path, page]): RouteObject => {
        const handle: RouteHandle = { titleKey: page.titleKey };
        return path === '/' ? { index: true, Component: page.Component, handle } : { path: path.slice(1), Component: page.Component, handle };
      }),
    },
  ];
}
