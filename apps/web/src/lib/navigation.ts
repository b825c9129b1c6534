import { isAuthRoute, isKnownRoute, type User } from '@warren/contract';

type NavigateFn = (to: string, opts?: { replace?: boolean }) => void;
let navigateFn: NavigateFn = (to) => window.location.assign(to);

/** The router registers itself here so non-React code (sign-out on 401) can navigate. */
export function setNavigator(fn: NavigateFn): void {
  navigateFn = fn;
}

export function navigateTo(to: string, opts?: { replace?: boolean }): void {
  navigateFn(to, opts);
}

/** Spec section 2, "Navigation after auth events": where a login lands. */
export function pathAfterLogin(user: Pick<User, 'verified'>, firstPathname: string | null): string {
  if (user.verified === 0) return '/plans';
  if (firstPathname && isKnownRoute(firstPathname) && !isAuthRoute(firstPathname)) return firstPathname;
  return '/dashboard';
}

/** After sign-up: /plans, or /dashboard when the sign-up carried a promo code. */
export function pathAfterSignUp(promocode: string | null | undefined): string {
  return promocode ? '/dashboard' : '/plans';
}
