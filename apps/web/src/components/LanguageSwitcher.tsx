import { Button, Menu } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, type Language } from '@warren/contract';
import { LANGUAGE_LABELS, changeLanguage, isLanguage } from '../lib/i18n';
import { IconCheck, IconChevronDown, IconLanguage } from './icons';

export function LanguageSwitcher({ compact = false }: { compact?: boolean }) {
  const { t, i18n } = useTranslation();
  const current: Language = isLanguage(i18n.resolvedLanguage) ? i18n.resolvedLanguage : 'en';
  return (
    <Menu position="bottom-end" shadow="md" width={170} withinPortal>
      <Menu.Target>
        <Button
          variant="subtle"
          color="gray"
          size="compact-sm"
          leftSection={<IconLanguage size={18} />}
          rightSection={<IconChevronDown size={14} />}
          aria-label={t('language.label')}
        >
          {compact ? current.toUpperCase() : LANGUAGE_LABELS[current]}
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        {LANGUAGES.map((lang) => (
          <Menu.Item
            key={lang}
            lang={lang}
            onClick={() => void changeLanguage(lang)}
            rightSection={lang === current ? <IconCheck size={16} /> : null}
            aria-current={lang === current ? 'true' : undefined}
          >
            {LANGUAGE_LABELS[lang]}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
