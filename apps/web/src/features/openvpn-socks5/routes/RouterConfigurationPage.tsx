import {
  Alert,
  Button,
  Card,
  Group,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import '@mantine/core/styles/SegmentedControl.layer.css';
import '@mantine/core/styles/SimpleGrid.layer.css';
import '@mantine/core/styles/Table.layer.css';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { type OpenVpnProtocol, ROUTER_FIRMWARES, type RouterFirmware } from '@warren/contract';
import { IconCrown, IconLock } from '../../../components/icons';
import { SetupPageFrame } from '../../../components/SetupPageFrame';
import { useServices } from '../api/services';
import { CredentialsCard } from '../components/CredentialsCard';
import classes from '../components/openvpn-socks5.module.css';
import { ROUTER_STEPS, downloadOvpn } from '../lib/files';

const FIRMWARE_NAMES: Record<RouterFirmware, string> = {
  openwrt: 'OpenWrt',
  'dd-wrt': 'DD-WRT',
  pfsense: 'pfSense',
  'asus-merlin': 'Asus Merlin',
  keenetic: 'Keenetic',
  mikrotik: 'MikroTik',
};

/** /setup/router-configuration: a firmware, a location and a protocol give a file and a step-by-step guide. */
export function RouterConfigurationPage() {
  const { t, i18n } = useTranslation();
  const services = useServices(i18n.language);
  const { data } = services;
  const [firmware, setFirmware] = useState<RouterFirmware>('openwrt');
  const [protocol, setProtocol] = useState<OpenVpnProtocol>('udp');
  const [slug, setSlug] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const available = (data?.locations ?? []).filter((l) => l.available && l.nodes.length);
  const loc = available.find((l) => l.slug === slug) ?? available[0];
  const steps = Array.from({ length: ROUTER_STEPS[firmware] }, (_, i) =>
    t(`services.router.${firmware}.steps.${i + 1}`, {
      file: loc ? `warren-${loc.slug}-${protocol}-${firmware}.ovpn` : '',
    }),
  );

  const download = async () => {
    if (!loc) return;
    setBusy(true);
    try {
      await downloadOvpn({ location: loc.slug, protocol, variant: firmware }, i18n.language);
    } catch {
      /* the api client already showed the error */
    } finally {
      setBusy(false);
    }
  };

  return (
    <SetupPageFrame
      title={t('titles.routerConfiguration')}
      intro={t('services.routerIntro')}
      query={services}
      loading={t('states.servicesLoading')}
      error={t('states.servicesFailed')}
    >
      {(data) => (
        <>
          {data.access === 'none' && <Alert color="red">{t('services.inactive')}</Alert>}
          <Card withBorder padding="lg">
            <Stack gap="md">
              <Select
                label={t('services.firmware')}
                data={ROUTER_FIRMWARES.map((f) => ({ value: f, label: FIRMWARE_NAMES[f] }))}
                value={firmware}
                onChange={(v) => v && setFirmware(v as RouterFirmware)}
                allowDeselect={false}
                data-testid="router-firmware"
              />
              <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
                <Select
                  label={t('services.location')}
                  data={available.map((l) => ({ value: l.slug, label: `${l.country}, ${l.city}` }))}
                  value={loc?.slug ?? null}
                  onChange={setSlug}
                  allowDeselect={false}
                  searchable
                  data-testid="router-location"
                />
                <Stack gap={4}>
                  <Text size="sm" fw={500}>
                    {t('services.protocol')}
                  </Text>
                  <SegmentedControl
                    data={[
                      { value: 'udp', label: 'UDP' },
                      { value: 'tcp', label: 'TCP' },
                    ]}
                    value={protocol}
                    onChange={(v) => setProtocol(v as OpenVpnProtocol)}
                  />
                </Stack>
              </SimpleGrid>
              {data.access === 'free' && (
                <Group justify="space-between" wrap="wrap" gap="xs">
                  <Text size="sm" c="dimmed">
                    {t('services.freeLocationsOnly')}
                  </Text>
                  <Button component={Link} to="/plans" size="xs" leftSection={<IconCrown size={14} />}>
                    {t('setup.upgrade')}
                  </Button>
                </Group>
              )}
              <Group>
                <Button onClick={download} loading={busy} disabled={!loc} data-testid="router-download">
                  {t('services.downloadFor', { firmware: FIRMWARE_NAMES[firmware] })}
                </Button>
              </Group>
              {firmware === 'keenetic' && (
                <Alert color="yellow" variant="light" icon={<IconLock size={16} />}>
                  {t('services.keeneticWarning')}
                </Alert>
              )}
            </Stack>
          </Card>
          <Card withBorder padding="lg" data-testid="router-steps">
            <Stack gap="sm">
              <Title order={3} fz={18}>
                {t('services.stepsFor', { firmware: FIRMWARE_NAMES[firmware] })}
              </Title>
              <ol className={classes.steps} style={{ margin: 0, paddingInlineStart: 22 }}>
                {steps.map((s, i) => (
                  <li key={i}>
                    <Text size="sm">{s}</Text>
                  </li>
                ))}
              </ol>
              {loc && (
                <Table withTableBorder verticalSpacing={6} mt="xs" fz="sm">
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>{t('services.server')}</Table.Th>
                      <Table.Th>{t('services.port')}</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {loc.nodes.map((n) => (
                      <Table.Tr key={n.host}>
                        <Table.Td className={classes.mono}>{n.host}</Table.Td>
                        <Table.Td>
                          {protocol === 'udp' ? n.udpPort : n.tcpPort} ({protocol.toUpperCase()})
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              )}
            </Stack>
          </Card>
          <CredentialsCard credentials={data.credentials} />
        </>
      )}
    </SetupPageFrame>
  );
}
