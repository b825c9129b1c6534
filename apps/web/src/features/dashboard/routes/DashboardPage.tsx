import type { ReactNode } from 'react';
import { Button, Card, Group, List, SimpleGrid, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import '@mantine/core/styles/List.layer.css';
import '@mantine/core/styles/SimpleGrid.layer.css';
import '@mantine/core/styles/ThemeIcon.layer.css';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { isFreeUser } from '../../../lib/plan';
import { useSession } from '../../../lib/session';
import { PlanLine } from '../../../components/PlanLine';
import { StatusBadge } from '../../../components/StatusBadge';
import { IconCard, IconCrown, IconDownload, IconGlobe, IconShield, IconTools } from '../../../components/icons';
import { setupLinks } from '../lib/links';
import classes from './DashboardPage.module.css';

const PREMIUM = ['allLocations', 'adBlocker', 'speed', 'devices'] as const;

/**
 * /dashboard: account status, plan and expiry with the plan line, quick links to set-up,
 * premium features with a crown, and the feature list panel (composed in by the app).
 */
export function DashboardPage({ features }: { features?: ReactNode }) {
  const { t, i18n } = useTranslation();
  const user = useSession((s) => s.user);
  if (!user) return null;
  const isFree = isFreeUser(user);
  const expires = user.subscriptionData.expiresAt ? new Date(user.subscriptionData.expiresAt) : null;
  const validExpiry = expires && !Number.isNaN(expires.getTime()) ? expires : null;
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
          <Group gap="md" wrap="nowrap" miw={0} className={classes.grow}>
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
        <Stack gap={6}>
          <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
            {t('dashboard.plan')}
          </Text>
          <PlanLine user={user} placement="page" />
          <Text size="sm" c="dimmed" data-testid="plan-expiry">
            {validExpiry
              ? t('dashboard.renews', { date: validExpiry.toLocaleDateString(i18n.language) })
              : t('dashboard.noExpiry')}
          </Text>
        </Stack>
      </Card>

      {features}

      <div>
        <Title order={2} fz={18} mb="sm">
          {t('dashboard.quickLinks')}
        </Title>
        <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="md">
          {setupLinks(user).map((c) => (
            <Card key={c.to} component={Link} to={c.to} withBorder padding="lg" className={classes.tile}>
              <div className={classes.tileInner}>
                <ThemeIcon variant="light" size={40} radius="md" className={classes.tileIcon}>
                  {c.icon === 'globe' ? (
                    <IconGlobe size={22} />
                  ) : c.icon === 'download' ? (
                    <IconDownload size={22} />
                  ) : c.icon === 'card' ? (
                    <IconCard size={22} />
                  ) : (
                    <IconTools size={22} />
                  )}
                </ThemeIcon>
                <div>
                  <Text fw={600}>{t(c.title)}</Text>
                  <Text size="sm" c="dimmed">
                    {t(c.text)}
                  </Text>
                </div>
              </div>
            </Card>
          ))}
        </SimpleGrid>
      </div>

      <Card withBorder padding="lg" data-testid="premium-features">
        <Group justify="space-between" align="flex-start" gap="md">
          <div>
            <Group gap={8}>
              <IconCrown size={20} className={classes.crown} aria-hidden />
              <Title order={2} fz={18}>
                {t('dashboard.premium.title')}
              </Title>
            </Group>
            <Text size="sm" c="dimmed" mt={4}>
              {isFree ? t('dashboard.premium.free') : t('dashboard.premium.paid')}
            </Text>
          </div>
          {isFree && (
            <Button component={Link} to="/plans" variant="light" leftSection={<IconCrown size={16} />}>
              {t('dashboard.upgrade')}
            </Button>
          )}
        </Group>
        <List
          spacing={8}
          mt="md"
          center
          icon={<IconCrown size={16} className={classes.crown} aria-label={t('features.premium')} role="img" />}
        >
          {PREMIUM.map((k) => (
            <List.Item key={k}>{t(`dashboard.premium.${k}`)}</List.Item>
          ))}
        </List>
      </Card>
    </Stack>
  );
}
