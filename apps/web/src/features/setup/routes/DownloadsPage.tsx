import { useEffect } from 'react';
import { Card, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { platformOf } from '@warren/contract';
import { EmptyState, ErrorState, LoadingState } from '../../../components/QueryState';
import { useOperationSystems } from '../api/operation-systems';
import { BrandApps } from '../components/BrandApps';
import { OsGuide } from '../components/OsGuide';
import { mineFirst } from '../lib/platforms';

/** /setup/downloads: the official clients of every system (the visitor's first), each with its steps. */
export function DownloadsPage() {
  const { t } = useTranslation();
  const { hash } = useLocation();
  const systems = useOperationSystems();
  const { data } = systems;
  const mine = platformOf(navigator.userAgent);
  const list = mineFirst(data ?? [], mine);

  // /setup links to one system (#android): scroll to it once the list is there.
  useEffect(() => {
    if (data && hash) document.getElementById(decodeURIComponent(hash.slice(1)))?.scrollIntoView();
  }, [data, hash]);

  return (
    <Stack gap="lg">
      <div>
        <Title order={2} fz={24}>
          {t('titles.downloads')}
        </Title>
        <Text c="dimmed">{t('setup.downloadsIntro')}</Text>
      </div>
      <BrandApps mine={mine} />
      {!data && systems.isError ? (
        <ErrorState
          message={t('states.appsFailed')}
          onRetry={() => void systems.refetch()}
          retrying={systems.isFetching}
        />
      ) : !data ? (
        <LoadingState label={t('states.appsLoading')} />
      ) : list.length === 0 ? (
        <EmptyState message={t('states.appsEmpty')} />
      ) : (
        list.map((os) => (
          <Card key={os.id} withBorder padding="lg" id={os.platform}>
            <OsGuide os={os} mine={os.platform === mine} />
          </Card>
        ))
      )}
    </Stack>
  );
}
