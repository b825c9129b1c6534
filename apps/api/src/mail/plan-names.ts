import type { Language } from '@warren/contract';

/**
 * Plan names in the mail's language, by tariff key: the web app's wording
 * (apps/web/public/assets/i18n/<lang>.json, payment.planNames; plan-names.test.ts keeps the two
 * equal). A key not listed here (a brand's own plan) keeps the catalogue's name.
 */
export const PLAN_NAMES: Record<Language, Readonly<Record<string, string>>> = {
  en: {
    'free-plan': 'Free',
    '1-month': '1 Month',
    '1-year': '1 Year',
    '2-years': '2 Years',
    lifetime: 'Lifetime',
    trial: '7-Day Trial',
  },
  ru: {
    'free-plan': 'Бесплатный',
    '1-month': '1 месяц',
    '1-year': '1 год',
    '2-years': '2 года',
    lifetime: 'Навсегда',
    trial: 'Пробный, 7 дней',
  },
  zh: {
    'free-plan': '免费版',
    '1-month': '1 个月',
    '1-year': '1 年',
    '2-years': '2 年',
    lifetime: '终身',
    trial: '7 天试用',
  },
};

/** A plan's name in `language` by its key; `fallback` (the catalogue's name) for a key we have no name for. */
export function planName(key: string | null | undefined, fallback: string, language: Language): string {
  const names = PLAN_NAMES[language] ?? PLAN_NAMES.en;
  return (key && Object.hasOwn(names, key) ? names[key] : undefined) ?? fallback;
}
