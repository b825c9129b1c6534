/**
 * Every path of the web app (spec section 2). Guards and the shell read this table, so a
 * route's title key and its rules live in one place.
 */
export const AUTH_ROUTES = ['/', '/sign-in', '/sign-up', '/forgot-pass', '/reset-password', '/auth'] as const;

export const CHECKOUT_ROUTES = [
  '/checkout',
  '/checkout-ru',
  '/checkout-a',
  '/checkout-cn',
  '/checkout-page',
  '/checkout-trial',
  '/checkout-test-19',
  '/checkout-lifetime',
  '/checkout-lifetime-cn',
  '/checkout-lifetime-ru',
  '/checkout-lite',
  '/checkout-15',
  '/checkout-25',
  '/checkout-ru-15',
  '/checkout-ru-25',
] as const;

export const IOS_ROUTES = ['/ios-download', '/ios-download-ru', '/ios-update-ru'] as const;

export const APP_ROUTES = [
  '/dashboard',
  '/server-locations',
  '/setup',
  '/setup/downloads',
  '/setup/configuration-files',
  '/setup/router-configuration',
  '/setup/socks5-proxy',
  '/setup/wg',
  '/plans',
  '/special-plan',
  '/thank-you',
  '/failed-payment',
  '/zg/paymentEvent',
  '/affiliate',
  '/rewards',
  '/profile',
  '/set-new-pass',
] as const;

/** True for a path the app knows (plans/{selectedPlan} included). */
export function isKnownRoute(pathname: string): boolean {
  const p = pathname.replace(/\/+$/, '') || '/';
  return (
    (AUTH_ROUTES as readonly string[]).includes(p) ||
    (CHECKOUT_ROUTES as readonly string[]).includes(p) ||
    (IOS_ROUTES as readonly string[]).includes(p) ||
    (APP_ROUTES as readonly string[]).includes(p) ||
    /^\/plans\/[A-Za-z0-9_-]+$/.test(p)
  );
}

export function isAuthRoute(pathname: string): boolean {
  const p = pathname.replace(/\/+$/, '') || '/';
  return (AUTH_ROUTES as readonly string[]).includes(p);
}

export function isCheckoutRoute(pathname: string): boolean {
  return (CHECKOUT_ROUTES as readonly string[]).includes(pathname.replace(/\/+$/, ''));
}
