import './app/mantine-base.css';
import './app/global.css';

import { StrictMode, startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { hydrate, type DehydratedState } from '@tanstack/react-query';
import i18next from 'i18next';
import { loadBrand } from './lib/brand';
import { injectBrandScripts } from './lib/brand-scripts';
import { initI18n } from './lib/i18n';
import { initSession } from './lib/session';
import { setNavigator } from './lib/navigation';
import { rememberFirstPathname, stripTokenParam, yieldToMain } from './lib/startup';
import { createRouter, whenRouterSettled } from './app/router';
import { Providers, createQueryClient } from './app/providers';
import type { RouteHandle } from './app/route-handle';
import { isCheckoutRoute } from '@warren/contract';
import { checkoutVariant } from './lib/billing/discount';
import { warmMoneyFormat } from './lib/billing/format';
import { STORAGE_KEYS, storage } from './lib/storage';
import { rememberServerPrices } from './lib/server-answers';

/**
 * The API answers the server rendered the page with (entry-server.tsx PageData), into the query
 * cache: the first render shows them without asking. They are as fresh as the HTML that just
 * arrived, so they count from the browser's clock, not the server's (the two may differ, and a
 * discount's countdown reads its answer's age).
 */
function takeServerQueries(queryClient: ReturnType<typeof createQueryClient>) {
  const script = document.getElementById('warren-query-state');
  if (!script?.textContent) return;
  try {
    const state = JSON.parse(script.textContent) as DehydratedState;
    const now = Date.now();
    for (const q of state.queries) q.state.dataUpdatedAt = now;
    hydrate(queryClient, state);
    if (state.queries.some((q) => q.queryKey[0] === 'billing' && q.queryKey[1] === 'landingPriceList'))
      rememberServerPrices(window.location.pathname);
  } catch {
    // A page without them asks for them itself.
  }
}

async function start() {
  // The modules' own evaluation was one task; the steps below are tasks of their own.
  await yieldToMain();
  rememberFirstPathname(window.location.pathname);
  const search = window.location.search;
  stripTokenParam();
  const brand = await loadBrand();
  // The brand's analytics / session-recording / tag-manager / help-chat snippets (none by default).
  injectBrandScripts(brand.scripts);
  // The session restores at once; only a bare token (?t=) waits for GET users/info/get, in the guards.
  void initSession(search);
  // The router starts its first navigation (the page's code, its guard) while the
  // translations download; the first render waits for both.
  const i18nReady = initI18n().catch(() => undefined);
  // Before the router: its first navigation's loaders may read what the server answered.
  const queryClient = createQueryClient();
  takeServerQueries(queryClient);
  await yieldToMain();
  const router = createRouter();
  setNavigator((to, opts) => void router.navigate(to, opts));
  await i18nReady;

  const app = (
    <StrictMode>
      <Providers queryClient={queryClient}>
        <RouterProvider router={router} />
      </Providers>
    </StrictMode>
  );
  const rootElement = document.getElementById('root')!;
  // The server rendered this page (signed-out pages, entry-server.tsx): take its HTML over when
  // the first render will be the same page in the same language. A stored language or a guard
  // that sends a signed-in visitor on makes another page: then render afresh.
  const serverLanguage = rootElement.dataset.serverLanguage;
  if (serverLanguage) {
    const landedOn = window.location.pathname;
    await whenRouterSettled(router);
    // A page in a fixed language (the -ru iOS pages) renders in it at once, as the server did.
    const fixed = router.state.matches
      .map((m) => (m.route.handle as RouteHandle | undefined)?.language)
      .filter((l) => !!l);
    if (fixed.length) await i18next.loadLanguages(fixed).catch(() => undefined);
    // A checkout variant in a language of its own switches to it on a first visit (CheckoutPage does
    // it too, later): done here first, the server's HTML in that language is taken over, not redrawn.
    const variantLanguage = isCheckoutRoute(landedOn) ? checkoutVariant(landedOn).language : undefined;
    if (variantLanguage && !storage.get(STORAGE_KEYS.i18nLang) && i18next.language !== variantLanguage) {
      await i18next.changeLanguage(variantLanguage).catch(() => undefined);
    }
    if (serverLanguage === i18next.language && router.state.location.pathname === landedOn && !router.state.errors) {
      if (isCheckoutRoute(landedOn)) {
        await yieldToMain();
        warmMoneyFormat(i18next.language);
        await yieldToMain();
      }
      // In a transition the take-over yields to the browser every few milliseconds (React
      // time-slices transition work) instead of holding the main thread for the whole page: the
      // page is already on screen, and a tap meanwhile is replayed once its part is hydrated.
      startTransition(() => {
        hydrateRoot(rootElement, app);
      });
      return;
    }
    rootElement.replaceChildren();
  }
  createRoot(rootElement).render(app);
}

void start();
