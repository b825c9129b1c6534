import './app/mantine-base.css';
// Inter as one variable font (weights 100-900): 48 kB for Latin instead of four 24 kB files.
import '@fontsource-variable/inter/wght.css';
import './app/global.css';

import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { loadBrand } from './lib/brand';
import { injectBrandScripts } from './lib/brand-scripts';
import { initI18n } from './lib/i18n';
import { initSession } from './lib/session';
import { setNavigator } from './lib/navigation';
import { rememberFirstPathname, stripTokenParam } from './lib/startup';
import { createRouter } from './app/router';
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

  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <Providers queryClient={queryClient}>
        <RouterProvider router={router} />
      </Providers>
    </StrictMode>,
  );
}

void start();
