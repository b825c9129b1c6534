import { isAuthRoute, isKnownRoute } from '@warren/contract';
import { STORAGE_KEYS, storage } from './storage';

const TAB_MARK = 'warren.firstPathnameSet';

/**
 * firstPathname: the first path this tab visited, if it is a known route and not an auth page
 * (where a login lands afterwards). Set once per tab; reloads keep it.
 */
export function rememberFirstPathname(pathname: string): void {
  try {
    if (window.sessionStorage.getItem(TAB_MARK)) return;
    window.sessionStorage.setItem(TAB_MARK, '1');
  } catch {
    /* no session storage: decide on every load */
  }
  if (isKnownRoute(pathname) && !isAuthRoute(pathname)) storage.set(STORAGE_KEYS.firstPathname, pathname);
  else storage.remove(STORAGE_KEYS.firstPathname);
}

/** `?t=TOKEN` is consumed by the session at start-up; keep it out of the address bar and history. */
export function stripTokenParam(): void {
  const url = new URL(window.location.href);
  if (!url.searchParams.has('t')) return;
  url.searchParams.delete('t');
  window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`);
}
