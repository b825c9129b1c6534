import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from './constants.js';

/**
 * Spec section 3: the app speaks a browser language by its first two letters ("ru-RU" → ru);
 * anything else is English. The web app applies it to navigator.language, the server to the
 * first tag of Accept-Language (to hint the translations a first visit will load).
 */
export function languageFromTag(tag: string | null | undefined): Language {
  const two = (tag ?? '').trim().slice(0, 2).toLowerCase();
  return (LANGUAGES as readonly string[]).includes(two) ? (two as Language) : DEFAULT_LANGUAGE;
}

/** One of the app's languages exactly ("ru"), as stored or sent by the app itself. */
export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/** A stored or sent language, or English for anything else (an old row, a forged query). */
export function languageOr(value: unknown, fallback: Language = DEFAULT_LANGUAGE): Language {
  return isLanguage(value) ? value : fallback;
}
