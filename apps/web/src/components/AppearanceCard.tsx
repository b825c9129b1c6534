import { useTranslation } from 'react-i18next';
import { ColorSchemeSwitch } from './ColorSchemeSwitch';
import { SectionCard } from './SectionCard';

/** The profile's colour scheme card: light / dark / system, kept in this browser. */
export function AppearanceCard() {
  const { t } = useTranslation();
  return (
    <SectionCard id="profile-appearance" title={t('colorScheme.label')} intro={t('colorScheme.hint')}>
      <ColorSchemeSwitch />
    </SectionCard>
  );
}
