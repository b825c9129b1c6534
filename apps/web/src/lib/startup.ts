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

/**
 * Lets the browser handle input and paint before the next step of start-up: each step is then a
 * task of its own instead of one long one (what Lighthouse counts as blocking time). Not a timer:
 * a tab opened in the background keeps timers to one a second; a message is not throttled.
 */
export function yieldToMain(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (typeof scheduler?.yield === 'function') return scheduler.yield();
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}
