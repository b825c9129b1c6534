import './app/mantine-base.css';
// Inter as one variable font (weights 100-900): 48 kB for Latin instead of four 24 kB files.
import '@fontsource-variable/inter/wght.css';
import './app/global.css';

import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import i18next from 'i18next';
import { loadBrand } from './lib/brand';
import { injectBrandScripts } from './lib/brand-scripts';
import { initI18n } from './lib/i18n';
import { initSession } from './lib/session';
import { setNavigator } from './lib/navigation';
import { rememberFirstPathname, stripTokenParam } from './lib/startup';
import { createRouter, whenRouterSettled } from './app/router';
import { Providers, createQueryClient } from './app/providers';

async function start() {
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
  const router = createRouter();
  setNavigator((to, opts) => void router.navigate(to, opts));
  const queryClient = createQueryClient();
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
    if (serverLanguage === i18next.language && router.state.location.pathname === landedOn && !router.state.errors) {
      hydrateRoot(rootElement, app);
      return;
    }
    rootElement.replaceChildren();
  }
  createRoot(rootElement).render(app);
}

void start();
