import { Card, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import '@mantine/core/styles/ThemeIcon.layer.css';
import { useMatches } from 'react-router';
import { useTranslation } from 'react-i18next';
import { IconTools } from '../../../components/icons';

/** Pages whose content comes with later issues: the title from the route and a short note. */
export function PlaceholderPage() {
  const { t } = useTranslation();
  const matches = useMatches();
  const titleKey = [...matches].reverse().map((m) => (m.handle as { titleKey?: string } | undefined)?.titleKey).find(Boolean);
  return (
    <Card withBorder padding="xl">
      <Stack gap="sm" align="flex-start">
        <ThemeIcon variant="light" size={44} radius="md">
          <IconTools size={24} />
        </ThemeIcon>
        <Title order={2} fz={22}>
          {titleKey ? t(titleKey) : ''}
        </Title>
        <Text c="dimmed">{t('placeholder.text')}</Text>
      </Stack>
    </Card>
  );
}
