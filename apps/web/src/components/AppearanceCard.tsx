import { Card, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ColorSchemeSwitch } from './ColorSchemeSwitch';

/** The profile's colour scheme card: light / dark / system, kept in this browser. */
export function AppearanceCard() {
  const { t } = useTranslation();
  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="profile-appearance">
      <Title order={2} fz={18} mb={4} id="profile-appearance">
        {t('colorScheme.label')}
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        {t('colorScheme.hint')}
      </Text>
      <ColorSchemeSwitch />
    </Card>
  );
}
