import { SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import '@mantine/core/styles/SimpleGrid.layer.css';
import '@mantine/core/styles/Skeleton.layer.css';
import { useTranslation } from 'react-i18next';
import { platformOf } from '@warren/contract';
import { useDownloads } from '../api/downloads';
import { AppCard } from '../components/AppCard';

/** /setup/downloads: every app, the visitor's platform first. */
export function DownloadsPage() {
  const { t } = useTranslation();
  const { data, isPending } = useDownloads();
  const mine = platformOf(navigator.userAgent);
  const apps = [...(data ?? [])].sort((a, b) => Number(b.platform === mine) - Number(a.platform === mine));
  return (
    <Stack gap="lg">
      <div>
        <Title order={2} fz={24}>
          {t('titles.downloads')}
        </Title>
        <Text c="dimmed">{t('setup.guideIntro')}</Text>
      </div>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
        {isPending
          ? Array.from({ length: 6 }, (_, i) => <Skeleton key={i} h={170} radius="md" />)
          : apps.map((app) => <AppCard key={app.id} app={app} highlight={app.platform === mine} />)}
      </SimpleGrid>
    </Stack>
  );
}
