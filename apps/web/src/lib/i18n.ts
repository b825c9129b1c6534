import i18next, { type BackendModule, type InitOptions, type i18n as I18n, type PostProcessorModule } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { DEFAULT_LANGUAGE, LANGUAGES, brandify, isLanguage, languageFromTag, type Language } from '@warren/contract';
import { STORAGE_KEYS, storage } from './storage';
import { getBrand } from './brand';

export { isLanguage };

/** Spec section 3: stored i18nLang, else the browser language's first two letters, else en. */
export function detectLanguage(stored: string | null, navigatorLanguage: string | undefined): Language {
  return isLanguage(stored) ? stored : languageFromTag(navigatorLanguage);
}

/** Replaces VPN with Proxy on proxy brands, in every translated string. */
export const brandifyProcessor: PostProcessorModule = {
  type: 'postProcessor',
  name: 'brandify',
  process: (value: string) => brandify(value, getBrand().kind),
};

/**
 * The translations' version the page names (apps/api/src/plugins/page-hints.ts
 * translationsVersion): asked for with it, they are cached for a year instead of revalidated
 * before every first render, and the URL is the one the page's preload names.
 */
function translationsQuery(): string {
  const version =
    typeof document === 'undefined'
      ? null
      : document.querySelector<HTMLMetaElement>('meta[name="warren-i18n-version"]')?.content;
  return version ? `?v=${encodeURIComponent(version)}` : '';
}

/** Reads assets/i18n/{lang}.json at runtime. */
const fetchBackend: BackendModule = {
  type: 'backend',
  init() {},
  read(language, _namespace, callback) {
    fetch(`${import.meta.env.BASE_URL}assets/i18n/${language}.json${translationsQuery()}`)
      .then((res) => {
        if (!res.ok) throw new Error(`Translations ${language}: ${res.status}`);
        return res.json();
      })
      .then((data) => callback(null, data))
      .catch((err: Error) => callback(err, false));
  },
};

/** One configuration for the browser and for the server's first render of signed-out pages. */
export function i18nOptions(lng: Language, productName: string): InitOptions {
  return {
    lng,
    fallbackLng: DEFAULT_LANGUAGE,
    supportedLngs: [...LANGUAGES],
    load: 'languageOnly',
    postProcess: ['brandify'],
    interpolation: { escapeValue: false, defaultVariables: { product: productName } },
    react: { useSuspense: false },
    returnNull: false,
  };
}

let ready: Promise<unknown> = Promise.resolve();

/**
 * Settles once the first translations are in (or failed). Start-up does not wait for them
 * before starting the router, so the page's code and the translations download together;
 * route guards wait here before showing a message.
 */
export function whenI18nReady(): Promise<void> {
  return ready.then(
    () => undefined,
    () => undefined,
  );
}

export function initI18n(instance: I18n = i18next): Promise<I18n> {
  const started = startI18n(instance);
  ready = started;
  return started;
}

async function startI18n(instance: I18n): Promise<I18n> {
  const lng = detectLanguage(storage.get(STORAGE_KEYS.i18nLang), navigator.language);
  await instance
    .use(fetchBackend)
    .use(brandifyProcessor)
    .use(initReactI18next)
    .init(i18nOptions(lng, getBrand().productName));
  document.documentElement.lang = lng;
  instance.on('languageChanged', (l) => {
    document.documentElement.lang = l;
  });
  return instance;
}

/** The language switcher: stores i18nLang and switches. */
export async function changeLanguage(lang: Language, instance: I18n = i18next): Promise<void> {
  storage.set(STORAGE_KEYS.i18nLang, lang);
  await instance.changeLanguage(lang);
}

export const LANGUAGE_LABELS: Record<Language, string> = { en: 'English', ru: 'Русский', zh: '中文' };
