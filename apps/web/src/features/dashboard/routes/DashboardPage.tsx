import { Button, Card, Group, SimpleGrid, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { FREE_TARIFF_KEY } from '@warren/contract';
import { useSession } from '../../../lib/session';
import { StatusBadge } from '../../../components/StatusBadge';
import { IconCard, IconCrown, IconGlobe, IconShield, IconTools } from '../../../components/icons';
import classes from './DashboardPage.module.css';

export function DashboardPage() {
  const { t, i18n } = useTranslation();
  const user = useSession((s) => s.user);
  if (!user) return null;
  const isFree = user.subscriptionData.tariffKey === FREE_TARIFF_KEY;
  const expires = user.subscriptionData.expiresAt ? new Date(user.subscriptionData.expiresAt) : null;
  const name = user.firstName.trim();

  return (
    <Stack gap="lg">
      <div>
        <Title order={2} className={classes.hello}>
          {name ? t('dashboard.helloName', { name }) : t('dashboard.hello')}
        </Title>
        <Text c="dimmed">{t('dashboard.intro')}</Text>
      </div>

      <Card withBorder shadow="xs" padding="lg" className={classes.account}>
        <Group justify="space-between" align="flex-start" wrap="wrap" gap="md">
          <Group gap="md" wrap="nowrap" miw={0}>
            <ThemeIcon size={48} radius="md" variant="light">
              <IconShield size={26} />
            </ThemeIcon>
            <Stack gap={2} miw={0}>
              <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
                {t('dashboard.account')}
              </Text>
              <Text fw={600} truncate data-testid="dashboard-email">
                {user.email}
              </Text>
            </Stack>
          </Group>
          <Stack gap={4} className={classes.statusBlock}>
            <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
              {t('dashboard.status')}
            </Text>
            <span data-testid="account-status">
              <StatusBadge status={user.accountStatus} />
            </span>
          </Stack>
        </Group>
        <div className={classes.divider} />
        <Group justify="space-between" wrap="wrap" gap="md">
          <Stack gap={2}>
            <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
              {t('dashboard.plan')}
            </Text>
            <Group gap={8}>
              <Text fw={700} size="lg" data-testid="plan-name">
                {user.subscriptionData.tariffName}
              </Text>
            </Group>
            {expires && !Number.isNaN(expires.getTime()) && (
              <Text size="sm" c="dimmed">
                {t('dashboard.renews', { date: expires.toLocaleDateString(i18n.language) })}
              </Text>
            )}
          </Stack>
          {isFree && (
            <Button component={Link} to="/plans" leftSection={<IconCrown size={18} />} h={46} px="lg">
              {t('dashboard.upgrade')}
            </Button>
          )}
        </Group>
      </Card>

      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
        {[
          { to: '/server-locations', icon: IconGlobe, title: 'menu.serverLocations', text: 'dashboard.cards.locations' },
          { to: '/setup', icon: IconTools, title: 'menu.setup', text: 'dashboard.cards.setup' },
          { to: '/plans', icon: IconCard, title: 'menu.plans', text: 'dashboard.cards.plans' },
        ].map((c) => (
          <Card key={c.to} component={Link} to={c.to} withBorder padding="lg" className={classes.tile}>
            <ThemeIcon variant="light" size={40} radius="md" mb="sm">
              <c.icon size={22} />
            </ThemeIcon>
            <Text fw={600}>{t(c.title)}</Text>
            <Text size="sm" c="dimmed">
              {t(c.text)}
            </Text>
          </Card>
        ))}
      </SimpleGrid>
    </Stack>
  );
}
