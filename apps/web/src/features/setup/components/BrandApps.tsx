import { SimpleGrid, Stack, Title } from '@mantine/core';
import '@mantine/core/styles/SimpleGrid.layer.css';
import { useTranslation } from 'react-i18next';
import { useDownloads } from '../api/downloads';
import { AppCard } from './AppCard';

/** A brand's own apps (config/downloads.json), when it has any; Warren ships none, so this renders nothing. */
export function BrandApps({ mine }: { mine: string }) {
  const { t } = useTranslation();
  const { data } = useDownloads();
  if (!data?.length) return null;
  const apps = [...data].sort((a, b) => Number(b.platform === mine) - Number(a.platform === mine));
  return (
    <Stack gap="sm" data-testid="brand-apps">
      <Title order={3} fz={18}>
        {t('setup.brandApps')}
      </Title>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
        {apps.map((app) => (
          <AppCard key={app.id} app={app} highlight={app.platform === mine} />
        ))}
      </SimpleGrid>
    </Stack>
  );
}
