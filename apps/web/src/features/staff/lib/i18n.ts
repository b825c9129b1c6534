import i18next, { type i18n as I18n } from 'i18next';
import en from '../i18n/en.json';
import ru from '../i18n/ru.json';
import zh from '../i18n/zh.json';

/**
 * The console's words live in their own namespace, inside its own chunk: a customer's first load
 * downloads neither its code nor its text (assets/i18n/*.json stay the customer app's). All three
 * languages are small and come together, so switching language needs no extra request.
 */
export const STAFF_NS = 'staff';

export const STAFF_TRANSLATIONS = { en, ru, zh } as const;

export function addStaffTranslations(instance: I18n = i18next): void {
  for (const [lang, bundle] of Object.entries(STAFF_TRANSLATIONS)) {
    if (!instance.hasResourceBundle(lang, STAFF_NS)) instance.addResourceBundle(lang, STAFF_NS, bundle, true, true);
  }
}
