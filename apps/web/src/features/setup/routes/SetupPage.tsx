import { Anchor, Button, Card, Group, List, SimpleGrid, Skeleton, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import '@mantine/core/styles/List.layer.css';
import '@mantine/core/styles/SimpleGrid.layer.css';
import '@mantine/core/styles/Skeleton.layer.css';
import '@mantine/core/styles/ThemeIcon.layer.css';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { platformOf } from '@warren/contract';
import { IconTools } from '../../../components/icons';
import { useSession } from '../../../lib/session';
import { useDownloads } from '../api/downloads';
import { AppCard } from '../components/AppCard';

/** /setup: the guide for the visitor's OS first, then the other apps. */
export function SetupPage() {
  const { t } = useTranslation();
  const user = useSession((s) => s.user);
  const { data, isPending } = useDownloads();
  const mine = platformOf(navigator.userAgent);
  const primary = data?.find((a) => a.platform === mine) ?? data?.[0];
  const others = (data ?? []).filter((a) => a !== primary);

  return (
    <Stack gap="lg">
      <div>
        <Title order={2} fz={24}>
          {t('titles.setup')}
        </Title>
        <Text c="dimmed">{t('setup.guideIntro')}</Text>
      </div>
      {isPending || !primary ? (
        <Skeleton h={220} radius="md" />
      ) : (
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
          <Card withBorder padding="lg" data-testid="setup-guide">
            <Stack gap="sm">
              <Group gap="sm">
                <ThemeIcon variant="light" size={40} radius="md">
                  <IconTools size={22} />
                </ThemeIcon>
                <Title order={3} fz={18}>
                  {primary.name}
                </Title>
              </Group>
              <List type="ordered" spacing="xs">
                <List.Item>{t('setup.steps.install', { os: primary.name })}</List.Item>
                <List.Item>{t('setup.steps.signIn')}</List.Item>
                <List.Item>{t('setup.steps.connect')}</List.Item>
              </List>
            </Stack>
          </Card>
          <AppCard app={primary} highlight />
        </SimpleGrid>
      )}
      {user?.isWgSectionAvailable && (
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
            {others.map((app) => (
              <AppCard key={app.id} app={app} />
            ))}
          </SimpleGrid>
        </Stack>
      )}
    </Stack>
  );
}
