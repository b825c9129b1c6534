import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { RouterProvider, createMemoryRouter } from 'react-router';
import { dehydrate, type DehydratedState } from '@tanstack/react-query';
import { createInstance, type i18n as I18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { LANGUAGES, type Language, type PublicBrand } from '@warren/contract';
import { formatTitle, setBrand } from './lib/brand';
import { brandifyProcessor, i18nOptions } from './lib/i18n';
import { Providers, createQueryClient } from './app/providers';
import { SERVER_PAGES, serverRoutes, type ApiGet, type PageData } from './app/server-routes';

export type { ApiGet, PageData };

/**
 * The server's first render of the signed-out pages (built with `vite build --ssr` into
 * dist-ssr; apps/api/src/plugins/spa.ts calls it). The visitor sees the page as soon as the
 * HTML and its stylesheet arrive instead of after ~200 kB of script, and the browser's first
 * render (main.tsx) takes the HTML over.
 */
export type Translations = Partial<Record<Language, Record<string, unknown>>>;

export interface FirstRender {
  html: string;
  title: string;
  /** The page's language: the visitor's, or the page's own (the -ru iOS pages). */
  lang: Language;
  /** The app's language the HTML was rendered in: the visitor's, or the one the page switches to (ServerPage.appLanguage). */
  appLanguage: Language;
  /** The query cache the page rendered with (PageData), for the browser's first render; absent when empty. */
  state?: DehydratedState;
  /** The HTML is this visitor's alone (a discount's countdown): not to be kept for others. */
  perVisitor?: boolean;
}

/** Not a page: the visitor goes to this path of the site instead (the server keeps the query). */
export interface Redirect {
  redirect: string;
}

/** `/checkout/` is `/checkout`, as the browser's router sees it. */
function pagePath(pathname: string): string {
  return pathname.length > 1 ? pathname.replace(/\/+$/, '') || '/' : pathname;
}

const instances = new Map<string, I18n>();

/** One i18next instance per language and brand, made once, synchronously, from the bundled translations (all of them: a page may be in a fixed language). */
function i18nFor(language: Language, brand: PublicBrand, translations: Translations): I18n {
  const key = `${language}|${brand.kind}|${brand.productName}`;
  let instance = instances.get(key);
  if (!instance) {
    instance = createInstance();
    const resources = Object.fromEntries(
      LANGUAGES.filter((l) => translations[l]).map((l) => [l, { translation: translations[l]! }]),
    );
    void instance
      .use(brandifyProcessor)
      .use(initReactI18next)
      .init({ ...i18nOptions(language, brand.productName), resources, initAsync: false });
    instances.set(key, instance);
  }
  return instance;
}

/**
 * The API answers `pathname` shows on its first screen (ServerPage.data), asked for with `get`
 * (the server's in-process request, as the visitor). Empty for pages that need none.
 */
export async function loadPageData(pathname: string, get: ApiGet): Promise<PageData[]> {
  const path = pagePath(pathname);
  const page = SERVER_PAGES[path];
  return page?.data ? page.data(path, get) : [];
}

/**
 * The page's HTML and title, a redirect its answers decide (ServerPage.outcome), or null when
 * `url` is not a page the server renders. Synchronous on purpose: the brand is module state.
 */
export function renderPage(
  url: string,
  brand: PublicBrand,
  visitorLanguage: Language,
  translations: Translations,
  data: readonly PageData[] = [],
): FirstRender | Redirect | null {
  const parsed = new URL(url, 'http://server.invalid');
  const { search } = parsed;
  const pathname = pagePath(parsed.pathname);
  const page = SERVER_PAGES[pathname];
  const language = page?.appLanguage ?? visitorLanguage;
  if (!page || !translations[language]) return null;
  const outcome = page.outcome?.(pathname, data) ?? {};
  if (outcome.redirect) return { redirect: outcome.redirect };
  setBrand(brand);
  const i18n = i18nFor(language, brand, translations);
  const router = createMemoryRouter(serverRoutes(), { initialEntries: [pathname + search] });
  const queryClient = createQueryClient();
  for (const d of data) queryClient.setQueryData(d.key, d.data);
  try {
    const html = renderToString(
      <StrictMode>
        <Providers queryClient={queryClient} i18n={i18n}>
          <RouterProvider router={router} />
        </Providers>
      </StrictMode>,
    );
    const lang = page.language ?? language;
    return {
      html,
      title: formatTitle(brand.productName, i18n.getFixedT(lang)(page.titleKey), brand.kind),
      lang,
      appLanguage: language,
      ...(data.length ? { state: dehydrate(queryClient) } : {}),
      ...(outcome.perVisitor ? { perVisitor: true } : {}),
    };
  } finally {
    router.dispose();
    queryClient.clear();
  }
}
