import { NativeSelect } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, type Language } from '@warren/contract';
import { LANGUAGE_LABELS, changeLanguage, isLanguage } from '../lib/i18n';
import { useHydrated } from '../lib/hydration';
import { IconLanguage } from './icons';

/**
 * The browser's own select: the system picker on phones, keyboard and screen-reader support
 * for free, and no popover code on the first screen (a Menu would load floating-ui there).
 */
export function LanguageSwitcher({ compact = false }: { compact?: boolean }) {
  const { t, i18n } = useTranslation();
  const current: Language = isLanguage(i18n.resolvedLanguage) ? i18n.resolvedLanguage : 'en';
  // In server-rendered HTML the select waits for the app (a choice made before would do nothing).
  const hydrated = useHydrated();
  return (
    <NativeSelect
      variant="unstyled"
      size="sm"
      aria-label={t('language.label')}
      disabled={!hydrated}
      value={current}
      onChange={(e) => {
        if (isLanguage(e.currentTarget.value)) void changeLanguage(e.currentTarget.value);
      }}
      leftSection={<IconLanguage size={18} />}
      leftSectionPointerEvents="none"
      // Compact: tight sections around a two-letter code, so the brand name beside it fits on a phone.
      w={compact ? 84 : 140}
      leftSectionWidth={compact ? 28 : undefined}
      rightSectionWidth={compact ? 24 : undefined}
      data={LANGUAGES.map((lang) => ({ value: lang, label: compact ? lang.toUpperCase() : LANGUAGE_LABELS[lang] }))}
      data-testid="language-switcher"
    />
  );
}
