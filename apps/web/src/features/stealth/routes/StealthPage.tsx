import { Alert, Anchor, Badge, Button, Card, Group, List, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import '@mantine/core/styles/List.layer.css';
import '@mantine/core/styles/SimpleGrid.layer.css';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { type StealthLink, platformOf, vpnAccess } from '@warren/contract';
import { CopyField } from '../../../components/CopyField';
import { IconCrown, IconShieldCheck } from '../../../components/icons';
import { QrCode } from '../../../components/QrCode';
import { SetupPageFrame } from '../../../components/SetupPageFrame';
import { openConfirm } from '../../../lib/confirm';
import { snackbar } from '../../../lib/notify';
import { getBrand } from '../../../lib/brand';
import { useSession } from '../../../lib/session';
import { useStealth } from '../api/stealth-get';
import { useResetStealth } from '../api/stealth-reset';
import { STEALTH_APPS, STEALTH_PLATFORMS, type StealthPlatform, stealthPlatformOf } from '../lib/apps';
import classes from './stealth.module.css';

/**
 * /setup/stealth: VLESS and Trojan for networks that block VPNs. One subscription URL (QR code,
 * copy, "Add to app" links) that the apps import and refresh, the per-location share links, and
 * what to do when it stops working. Paid plans only; other plans see the upgrade prompt.
 */
export function StealthPage() {
  const { t, i18n } = useTranslation();
  const paid = useSession(({ user }) =>
    user
      ? vpnAccess({
          accountStatus: user.accountStatus,
          tariffKey: user.subscriptionData.tariffKey,
          subscriptionExpiresAt: user.subscriptionData.expiresAt,
        }) === 'paid'
      : false,
  );
  const stealth = useStealth(i18n.language, paid);
  return (
    <SetupPageFrame
      title={t('titles.stealth')}
      intro={t('stealth.intro')}
      icon={<IconShieldCheck size={16} />}
      query={stealth}
      loading={t('stealth.loading')}
      error={t('stealth.failed')}
    >
      {(state) =>
        state.kind === 'upgrade' ? (
          <Upgrade />
        ) : (
          <Ready subscriptionUrl={state.overview.subscriptionUrl} links={state.overview.links} />
        )
      }
    </SetupPageFrame>
  );
}

function Upgrade() {
  const { t } = useTranslation();
  return (
    <Card withBorder padding="lg" data-testid="stealth-upgrade">
      <Stack gap="sm" align="flex-start">
        <Group gap={8}>
          <IconCrown size={18} />
          <Title order={3} fz={18}>
            {t('stealth.paid')}
          </Title>
        </Group>
        <Text size="sm" c="dimmed">
          {t('stealth.paidText')}
        </Text>
        <Button component={Link} to="/plans" leftSection={<IconCrown size={14} />}>
          {t('setup.upgrade')}
        </Button>
      </Stack>
    </Card>
  );
}

function Ready({ subscriptionUrl, links }: { subscriptionUrl: string; links: StealthLink[] }) {
  const { t, i18n } = useTranslation();
  const brand = getBrand().productName;
  const reset = useResetStealth(i18n.language);
  const mine = stealthPlatformOf(platformOf(navigator.userAgent));
  const platforms = [mine, ...STEALTH_PLATFORMS.filter((p) => p !== mine)];
  const byLocation = [...new Set(links.map((l) => l.location))].map((loc) => links.filter((l) => l.location === loc));
  const onReset = () =>
    openConfirm({
      title: t('stealth.resetTitle'),
      body: t('stealth.resetText'),
      confirmLabel: t('stealth.reset'),
      cancelLabel: t('services.cancel'),
      danger: true,
      confirmTestId: 'confirm-stealth-reset',
      onConfirm: () =>
        reset.mutate(undefined, { onSuccess: () => snackbar(t('stealth.resetDone'), { kind: 'success' }) }),
    });

  return (
    <>
      <Card withBorder padding="lg" data-testid="stealth-subscription">
        <Stack gap="sm">
          <Title order={3} fz={18}>
            {t('stealth.subscription')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('stealth.subscriptionHint')}
          </Text>
          <div className={classes.subscription}>
            <QrCode
              value={subscriptionUrl}
              alt={t('stealth.subscriptionQr')}
              size={180}
              testId="stealth-subscription-qr"
            />
            <Stack gap="sm" className={classes.grow}>
              <CopyField
                label={t('stealth.subscriptionUrl')}
                value={subscriptionUrl}
                testId="stealth-subscription-url"
                mono
              />
              <Text size="xs" c="dimmed">
                {t('stealth.private')}
              </Text>
              <Group justify="flex-end">
                <Button
                  variant="light"
                  color="red"
                  size="xs"
                  onClick={onReset}
                  loading={reset.isPending}
                  data-testid="stealth-reset"
                >
                  {t('stealth.reset')}
                </Button>
              </Group>
            </Stack>
          </div>
        </Stack>
      </Card>

      <Card withBorder padding="lg" data-testid="stealth-apps">
        <Stack gap="md">
          <Title order={3} fz={18}>
            {t('stealth.apps')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('stealth.appsHint')}
          </Text>
          {platforms.map((p) => (
            <PlatformApps key={p} platform={p} mine={p === mine} subscriptionUrl={subscriptionUrl} title={brand} />
          ))}
        </Stack>
      </Card>

      <Card withBorder padding="lg" data-testid="stealth-links">
        <Stack gap="sm">
          <Title order={3} fz={18}>
            {t('stealth.locations')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('stealth.locationsHint')}
          </Text>
          {byLocation.length === 0 ? (
            <Alert color="yellow" data-testid="stealth-no-locations">
              {t('stealth.noLocations')}
            </Alert>
          ) : (
            byLocation.map((group) => (
              <Stack key={group[0]!.location} gap="xs" className={classes.location} data-testid="stealth-location">
                <Text fw={600}>{group[0]!.name}</Text>
                {group.map((l) => (
                  <ShareLink key={l.url} link={l} />
                ))}
              </Stack>
            ))
          )}
        </Stack>
      </Card>

      <Card withBorder padding="lg" data-testid="stealth-help">
        <Stack gap="sm">
          <Title order={3} fz={18}>
            {t('stealth.troubleTitle')}
          </Title>
          <List size="sm" spacing={6} type="ordered">
            {(['1', '2', '3', '4', '5'] as const).map((k) => (
              <List.Item key={k}>{t(`stealth.trouble.${k}`)}</List.Item>
            ))}
          </List>
        </Stack>
      </Card>
    </>
  );
}

function PlatformApps({
  platform,
  mine,
  subscriptionUrl,
  title,
}: {
  platform: StealthPlatform;
  mine: boolean;
  subscriptionUrl: string;
  title: string;
}) {
  const { t } = useTranslation();
  return (
    <Stack gap={6} data-testid={`stealth-platform-${platform}`}>
      <Group gap="xs">
        <Title order={4} fz={16}>
          {t(`stealth.platforms.${platform}`)}
        </Title>
        {mine && (
          <Badge variant="light" size="sm">
            {t('setup.yourDevice')}
          </Badge>
        )}
      </Group>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm">
        {STEALTH_APPS[platform].map((app) => (
          <Card key={app.id} withBorder padding="sm" data-testid={`stealth-app-${platform}-${app.id}`}>
            <Stack gap={6}>
              <Group gap="xs" justify="space-between">
                <Text fw={600}>{app.name}</Text>
                {app.paid && (
                  <Badge variant="outline" size="xs" color="gray">
                    {t('stealth.paidApp')}
                  </Badge>
                )}
              </Group>
              <Group gap="xs">
                {app.stores.map((s) => (
                  <Anchor
                    key={s.url}
                    href={s.url}
                    target="_blank"
                    rel="noopener noreferrer"
                    size="sm"
                    aria-label={`${app.name}: ${t(`stealth.stores.${s.label}`)}`}
                  >
                    {t(`stealth.stores.${s.label}`)}
                  </Anchor>
                ))}
              </Group>
              {app.addLink && (
                <Button
                  component="a"
                  href={app.addLink(subscriptionUrl, title)}
                  size="xs"
                  variant="light"
                  aria-label={`${t('stealth.addTo', { app: app.name })} (${t(`stealth.platforms.${platform}`)})`}
                  data-testid={`stealth-add-${platform}-${app.id}`}
                >
                  {t('stealth.addTo', { app: app.name })}
                </Button>
              )}
            </Stack>
          </Card>
        ))}
      </SimpleGrid>
    </Stack>
  );
}

function ShareLink({ link }: { link: StealthLink }) {
  const { t } = useTranslation();
  const label = `${link.name} · ${link.protocol === 'vless' ? 'VLESS' : 'Trojan'}`;
  return (
    <div>
      <CopyField
        label={link.protocol === 'vless' ? t('stealth.vless') : t('stealth.trojan')}
        value={link.url}
        testId={`stealth-link-${link.location}-${link.protocol}`}
        mono
      />
      <details className={classes.qrDetails}>
        <summary>{t('stealth.showQr')}</summary>
        <QrCode value={link.url} alt={t('stealth.linkQr', { name: label })} size={200} />
      </details>
    </div>
  );
}
