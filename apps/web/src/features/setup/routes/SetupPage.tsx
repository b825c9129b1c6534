import { Anchor, Button, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import '@mantine/core/styles/SimpleGrid.layer.css';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { platformOf } from '@warren/contract';
import { clientsFor } from '../../../components/vpn-clients';
import { useSession } from '../../../lib/session';
import { EmptyState, ErrorState, LoadingState } from '../../../components/QueryState';
import { useOperationSystems } from '../api/operation-systems';
import { BrandApps } from '../components/BrandApps';
import { OsGuide } from '../components/OsGuide';
import { mineFirst } from '../lib/platforms';

/** /setup: the official clients for the visitor's system with their steps, then the other systems. */
export function SetupPage() {
  const { t } = useTranslation();
  const user = useSession((s) => s.user);
  const systems = useOperationSystems();
  const { data } = systems;
  const mine = platformOf(navigator.userAgent);
  const [primary, ...others] = mineFirst(data ?? [], mine);
  const wg = !!user?.isWgSectionAvailable;

  return (
    <Stack gap="lg">
      <div>
        <Title order={2} fz={24}>
          {t('titles.setup')}
        </Title>
        <Text c="dimmed">{t('setup.guideIntro')}</Text>
      </div>
      {!data && systems.isError ? (
        <ErrorState
          message={t('states.appsFailed')}
          onRetry={() => void systems.refetch()}
          retrying={systems.isFetching}
        />
      ) : !data ? (
        <LoadingState label={t('states.appsLoading')} />
      ) : !primary ? (
        <EmptyState message={t('states.appsEmpty')} />
      ) : (
        <Card withBorder padding="lg" data-testid="setup-guide">
          <OsGuide os={primary} mine={primary.platform === mine} />
        </Card>
      )}
      <BrandApps mine={mine} />
      <Card withBorder padding="md" data-testid="setup-stealth">
        <Group justify="space-between" wrap="wrap">
          <Text size="sm">{t('setup.stealthCta')}</Text>
          <Button component={Link} to="/setup/stealth" variant="light" size="xs">
            {t('menu.stealth')}
          </Button>
        </Group>
      </Card>
      {wg && (
        <Card withBorder padding="md">
          <Group justify="space-between" wrap="wrap">
            <Text size="sm">{t('setup.wgCta')}</Text>
            <Button component={Link} to="/setup/wg" variant="light" size="xs">
              WireGuard
            </Button>
          </Group>
        </Card>
      )}
      {others.length > 0 && (
        <Stack gap="sm">
          <Group justify="space-between">
            <Title order={3} fz={18}>
              {t('setup.otherDevices')}
            </Title>
            <Anchor component={Link} to="/setup/downloads" size="sm">
              {t('setup.allDownloads')}
            </Anchor>
          </Group>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
            {others.map((os) => (
              <Card key={os.id} withBorder padding="md" className={os.className} data-testid={`os-${os.id}`}>
                <Stack gap={6}>
                  <Title order={4} fz={16}>
                    {os.name}
                  </Title>
                  <Text size="sm" c="dimmed">
                    {clientsFor(os.platform, { wireguardFirst: wg })
                      .map((c) => c.name)
                      .join(' · ')}
                  </Text>
                  <Anchor component={Link} to={`/setup/downloads#${os.platform}`} size="sm">
                    {t('setup.howTo', { os: os.name })}
                  </Anchor>
                </Stack>
              </Card>
            ))}
          </SimpleGrid>
        </Stack>
      )}
    </Stack>
  );
}
