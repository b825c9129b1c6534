import { Alert, Badge, Button, Card, Group, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import '@mantine/core/styles/SimpleGrid.layer.css';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { OpenVpnProtocol, ServicesLocation } from '@warren/contract';
import { IconCrown, IconShield } from '../../../components/icons';
import { EmptyState } from '../../../components/QueryState';
import { SetupPageFrame } from '../../../components/SetupPageFrame';
import { useServices } from '../api/services';
import { CredentialsCard } from '../components/CredentialsCard';
import { LocationLabel } from '../components/LocationRow';
import classes from '../components/openvpn-socks5.module.css';
import { downloadOvpn } from '../lib/files';

function LocationCard({ loc }: { loc: ServicesLocation }) {
  const { t, i18n } = useTranslation();
  const [busy, setBusy] = useState<OpenVpnProtocol | null>(null);
  const get = async (protocol: OpenVpnProtocol) => {
    setBusy(protocol);
    try {
      await downloadOvpn({ location: loc.slug, protocol, variant: 'default' }, i18n.language);
    } catch {
      /* the api client already showed the error */
    } finally {
      setBusy(null);
    }
  };
  return (
    <Card withBorder padding="md" className={loc.available ? undefined : classes.locked} data-testid="ovpn-location">
      {/* On a phone the buttons go under the name instead of cutting it ("Bra…", "São …"). */}
      <Group justify="space-between" wrap="wrap" gap="sm">
        <div style={{ flex: '1 1 14rem', minWidth: 0 }}>
          <LocationLabel loc={loc} />
        </div>
        {loc.available ? (
          <Group gap={6} wrap="nowrap" style={{ flex: 'none', marginLeft: 'auto' }}>
            <Button
              size="xs"
              variant="light"
              loading={busy === 'udp'}
              onClick={() => get('udp')}
              data-testid={`ovpn-udp-${loc.slug}`}
            >
              UDP
            </Button>
            <Button
              size="xs"
              variant="light"
              loading={busy === 'tcp'}
              onClick={() => get('tcp')}
              data-testid={`ovpn-tcp-${loc.slug}`}
            >
              TCP
            </Button>
          </Group>
        ) : (
          <Button
            size="xs"
            component={Link}
            to="/plans"
            leftSection={<IconCrown size={12} />}
            variant="subtle"
            style={{ flex: 'none', marginLeft: 'auto' }}
          >
            {t('setup.unlock')}
          </Button>
        )}
      </Group>
    </Card>
  );
}

/**
 * Locations customers knew that take no one now (every node switched off or being retired): named
 * with why, as the WireGuard page does, instead of vanishing from the list.
 */
function UnavailableLocations({ locations }: { locations: ServicesLocation[] }) {
  const { t } = useTranslation();
  const gone = locations.filter((l) => l.unavailable);
  if (!gone.length) return null;
  return (
    <Alert
      color="orange"
      variant="light"
      title={t('services.unavailableTitle')}
      data-testid="ovpn-unavailable-locations"
    >
      <Stack gap={2}>
        {gone.map((l) => (
          <Text size="sm" key={l.slug}>
            {l.city}, {l.country}: {t(l.unavailable === 'off' ? 'setup.locationOff' : 'setup.locationRetiring')}
          </Text>
        ))}
      </Stack>
    </Alert>
  );
}

/** /setup/configuration-files: one .ovpn per location and protocol, and the credentials to sign in with. */
export function ConfigurationFilesPage() {
  const { t, i18n } = useTranslation();
  const services = useServices(i18n.language);
  const { data } = services;
  const [q, setQ] = useState('');
  const needle = q.trim().toLowerCase();
  const locations = (data?.locations ?? [])
    .filter((l) => !l.unavailable)
    .filter((l) => !needle || `${l.country} ${l.city}`.toLowerCase().includes(needle))
    .sort((a, b) => Number(b.available) - Number(a.available));
  return (
    <SetupPageFrame
      title={t('titles.configurationFiles')}
      intro={t('services.ovpnIntro')}
      icon={<IconShield size={16} />}
      query={services}
      loading={t('states.servicesLoading')}
      error={t('states.servicesFailed')}
    >
      {(data) => (
        <>
          {data.access === 'none' && <Alert color="red">{t('services.inactive')}</Alert>}
          <UnavailableLocations locations={data.locations} />
          <CredentialsCard credentials={data.credentials} />
          <Card withBorder padding="md">
            <Stack gap={6}>
              <Text fw={600}>{t('services.howTo')}</Text>
              <ol className={classes.steps} style={{ margin: 0, paddingInlineStart: 20 }}>
                <li>
                  <Text size="sm">{t('services.ovpnStep1')}</Text>
                </li>
                <li>
                  <Text size="sm">{t('services.ovpnStep2')}</Text>
                </li>
                <li>
                  <Text size="sm">{t('services.ovpnStep3')}</Text>
                </li>
              </ol>
              <Group gap="xs" mt={4}>
                <Badge variant="light" color={data.adblock ? 'teal' : 'gray'} data-testid="adblock-state">
                  {t(data.adblock ? 'services.adblockOn' : 'services.adblockOff')}
                </Badge>
                <Text size="xs" c="dimmed">
                  {t('services.adblockNote')}
                </Text>
              </Group>
            </Stack>
          </Card>
          <Group justify="space-between" align="flex-end" wrap="wrap">
            <Title order={3} fz={18}>
              {t('services.locations')}
            </Title>
            <TextInput
              placeholder={t('setup.search')}
              value={q}
              onChange={(e) => setQ(e.currentTarget.value)}
              w={{ base: '100%', sm: 280 }}
              aria-label={t('setup.search')}
            />
          </Group>
          <SimpleGrid cols={{ base: 1, md: 2 }} spacing="sm">
            {locations.map((l) => (
              <LocationCard key={l.id} loc={l} />
            ))}
          </SimpleGrid>
          {!locations.length && (
            <EmptyState message={t(data.locations.length ? 'setup.noResults' : 'states.locationsEmpty')} />
          )}
        </>
      )}
    </SetupPageFrame>
  );
}
