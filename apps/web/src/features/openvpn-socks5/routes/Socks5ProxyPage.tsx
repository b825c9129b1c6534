import { Alert, Button, Card, Code, Group, Stack, Text, Title } from '@mantine/core';
import '@mantine/core/styles/Code.layer.css';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { IconCrown } from '../../../components/icons';
import { SetupPageFrame } from '../../../components/SetupPageFrame';
import { useServices } from '../api/services';
import { Copy, CredentialsCard } from '../components/CredentialsCard';
import { LocationLabel } from '../components/LocationRow';
import classes from '../components/openvpn-socks5.module.css';

/** /setup/socks5-proxy: hosts, port and the service credentials, with copy buttons and a reset. Paid plans only. */
export function Socks5ProxyPage() {
  const { t, i18n } = useTranslation();
  const services = useServices(i18n.language);
  const { data } = services;
  const rows = (data?.locations ?? []).flatMap((l) =>
    l.nodes.map((n) => ({ loc: l, host: n.host, port: n.socksPort })),
  );
  const example =
    data && rows[0]
      ? `curl --socks5-hostname ${data.credentials.username}:${data.credentials.password}@${rows[0].host}:${rows[0].port} https://example.com/`
      : '';
  return (
    <SetupPageFrame
      title={t('titles.socks5')}
      intro={t('services.socksIntro')}
      query={services}
      loading={t('states.servicesLoading')}
      error={t('states.servicesFailed')}
    >
      {(data) =>
        !data.socksAvailable ? (
          <Card withBorder padding="lg" data-testid="socks-upgrade">
            <Stack gap="sm" align="flex-start">
              <Group gap={8}>
                <IconCrown size={18} />
                <Title order={3} fz={18}>
                  {t('services.socksPaid')}
                </Title>
              </Group>
              <Text size="sm" c="dimmed">
                {t(data.access === 'none' ? 'services.inactive' : 'services.socksPaidText')}
              </Text>
              <Button component={Link} to="/plans" leftSection={<IconCrown size={14} />}>
                {t('setup.upgrade')}
              </Button>
            </Stack>
          </Card>
        ) : (
          <>
            <CredentialsCard credentials={data.credentials} />
            <Card withBorder padding="lg">
              <Stack gap="sm">
                <Title order={3} fz={18}>
                  {t('services.socksServers')}
                </Title>
                <Text size="sm" c="dimmed">
                  {t('services.socksDns')}
                </Text>
                <Stack gap={0} data-testid="socks-hosts">
                  {rows.map((r) => (
                    <Group
                      key={`${r.loc.id}-${r.host}`}
                      justify="space-between"
                      gap="xs"
                      py={8}
                      className={classes.hostRow}
                      data-testid="socks-host"
                      wrap="wrap"
                    >
                      <LocationLabel loc={r.loc} />
                      <Group gap="xs" wrap="nowrap" miw={0} ml="auto">
                        <Text size="xs" className={classes.mono}>
                          {r.host}:{r.port}
                        </Text>
                        <Copy value={`${r.host}:${r.port}`} label={r.host} />
                      </Group>
                    </Group>
                  ))}
                </Stack>
              </Stack>
            </Card>
            {example && (
              <Card withBorder padding="lg">
                <Stack gap="xs">
                  <Group justify="space-between" wrap="nowrap">
                    <Text fw={600}>{t('services.socksTry')}</Text>
                    <Copy value={example} label="curl" />
                  </Group>
                  {/* The command scrolls sideways on a phone: focusable, so a keyboard can scroll it too. */}
                  <Code block className={classes.mono} tabIndex={0} role="region" aria-label={t('services.socksTry')}>
                    {example}
                  </Code>
                </Stack>
              </Card>
            )}
            {data.access === 'none' && <Alert color="red">{t('services.inactive')}</Alert>}
          </>
        )
      }
    </SetupPageFrame>
  );
}
