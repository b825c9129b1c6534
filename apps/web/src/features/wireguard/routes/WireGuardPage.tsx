import {
  Alert,
  Badge,
  Button,
  Card,
  Code,
  Group,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import '@mantine/core/styles/Code.layer.css';
import '@mantine/core/styles/SimpleGrid.layer.css';
import '@mantine/core/styles/Switch.layer.css';
import { useMediaQuery } from '@mantine/hooks';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { WgDevice, WgOverview } from '@warren/contract';
import { IconCrown, IconDownload, IconLock, IconShield } from '../../../components/icons';
import { ErrorState, LoadingState } from '../../../components/QueryState';
import { QrCode } from '../../../components/QrCode';
import { formatBytes } from '../../../lib/bytes';
import { errorBodyOf, errorStatus, errorText } from '../../../lib/http-error';
import { snackbar } from '../../../lib/notify';
import { openConfirm } from '../../../lib/confirm';
import { useAddWgDevice, useRenameWgDevice, useRevokeWgDevice } from '../api/wg-devices';
import { useWgOverview } from '../api/wg-overview';
import { configFor, saveFile, takesPort, zipConfigs } from '../lib/configs';
import { WgPortSelect } from '../components/WgPortSelect';
import { generateWgKeyPair } from '../lib/wg-keys';
import { type RotatedKey, WgDeviceKey } from '../components/WgDeviceKey';
import classes from './wireguard.module.css';

interface Fresh {
  device: WgDevice;
  privateKey: string;
  /** A new key for a device already listed (WgDeviceKey), not a new device. */
  rotated?: boolean;
}

/**
 * The location a new device starts on: the one the API recommends (nearest to the customer,
 * weighted by load) when the plan reaches it, else the first available one.
 */
export function initialLocation(overview: WgOverview): string | null {
  const available = overview.locations.filter((l) => l.available);
  return available.find((l) => l.slug === overview.recommended)?.slug ?? available[0]?.slug ?? null;
}

/**
 * The just-added device's configs: location picker, .conf download, QR code and a zip of all.
 * On a phone the download leads (a QR code cannot be scanned by the phone showing it) and the QR
 * code follows for another device; on a wider screen the QR code stands beside the controls.
 */
function FreshConfig({ fresh, overview }: { fresh: Fresh; overview: WgOverview }) {
  const { t } = useTranslation();
  // Read at once (this page is never rendered on the server): no wide first frame on a phone.
  const phone = useMediaQuery('(max-width: 36em)', undefined, { getInitialValueInEffect: false }) ?? false;
  const available = overview.locations.filter((l) => l.available);
  const [slug, setSlug] = useState(() => initialLocation(overview));
  const [ipv4Only, setIpv4Only] = useState(false);
  const [chosenPort, setPort] = useState<number | null>(null);
  const loc = available.find((l) => l.slug === slug) ?? available[0];
  // A port the newly picked location does not take falls back to its own.
  const port = loc && takesPort(loc, chosenPort) ? chosenPort : null;
  const conf = useMemo(
    () => (loc ? configFor(fresh.device, fresh.privateKey, loc, overview, { ipv4Only, port }) : null),
    [fresh, loc, overview, ipv4Only, port],
  );
  const [showText, setShowText] = useState(false);
  if (!loc || !conf) return null;
  const recommended = overview.recommended;
  const download = () => saveFile(conf.name, conf.text, 'text/plain');
  // With a port chosen, the zip holds the locations that take it (a file on another port would not connect).
  const zipped = available.filter((l) => takesPort(l, port));
  const zipAll = async () =>
    saveFile(
      `warren-${fresh.device.name.replace(/[^A-Za-z0-9-]+/g, '-')}.zip`,
      (await zipConfigs(
        zipped.map((l) => configFor(fresh.device, fresh.privateKey, l, overview, { ipv4Only, port })),
      )) as BlobPart,
      'application/zip',
    );

  const picker = (
    <Stack gap={6}>
      <Select
        label={t('setup.wg.location')}
        data={available.map((l) => ({
          value: l.slug,
          label: `${l.country}, ${l.city} (${l.countryCode})${l.slug === recommended ? ` · ${t('setup.wg.recommended')}` : ''}`,
        }))}
        value={loc.slug}
        onChange={setSlug}
        allowDeselect={false}
        searchable
      />
      {loc.slug === recommended && (
        <Group gap="xs" wrap="nowrap" data-testid="recommended">
          <Badge variant="light" color="teal" className={classes.recommended}>
            {t('setup.wg.recommended')}
          </Badge>
          <Text size="xs" c="dimmed">
            {t('setup.wg.recommendedHint')}
          </Text>
        </Group>
      )}
      <Switch
        label={t('setup.wg.ipv4Only')}
        description={t('setup.wg.ipv4OnlyHint')}
        checked={ipv4Only}
        onChange={(e) => setIpv4Only(e.currentTarget.checked)}
        data-testid="ipv4-only"
      />
      <WgPortSelect location={loc} value={port} onChange={setPort} />
    </Stack>
  );
  /** The zip of every format and the config as text, beside the main download on both layouts. */
  const otherDownloads = (
    <>
      <Button variant="light" onClick={zipAll} data-testid="download-zip">
        {port !== null && zipped.length < available.length
          ? t('setup.wg.downloadZipPort', { count: zipped.length, port })
          : t('setup.wg.downloadZip')}
      </Button>
      <Button variant="subtle" onClick={() => setShowText((v) => !v)}>
        {t('setup.wg.showConfig')}
      </Button>
    </>
  );
  const configText = showText && (
    <Code block className={classes.config} data-testid="config-text">
      {conf.text}
    </Code>
  );
  const qrCode = (size: number, caption: string) => (
    <Stack gap={4} align="center" data-testid="config-qr-block">
      <QrCode value={conf.text} alt={t('setup.wg.qr')} size={size} className={classes.qr} testId="config-qr" />
      <Text size="xs" c="dimmed" maw={size + 40} ta="center">
        {caption}
      </Text>
    </Stack>
  );

  return (
    <Card withBorder padding="lg" data-testid="fresh-config" data-layout={phone ? 'phone' : 'wide'}>
      <Stack gap="md">
        <Title order={3} fz={18} tabIndex={-1} data-testid="fresh-config-title">
          {t(fresh.rotated ? 'setup.wgKey.newKey' : 'setup.wg.newDevice', { name: fresh.device.name })}
        </Title>
        <Alert color="yellow" variant="light" icon={<IconLock size={16} />}>
          {t('setup.wg.saveNow')}
        </Alert>
        {phone ? (
          <>
            {picker}
            <Stack gap={4}>
              <Button
                size="md"
                fullWidth
                leftSection={<IconDownload size={18} />}
                onClick={download}
                classNames={{ root: classes.tallButton, label: classes.wrapLabel }}
                data-testid="download-conf"
              >
                {t('setup.wg.downloadForApp')}
              </Button>
              <Text size="xs" c="dimmed">
                {t('setup.wg.downloadForAppHint')}
              </Text>
            </Stack>
            <Group gap="sm">{otherDownloads}</Group>
            {configText}
            {qrCode(180, t('setup.wg.qrOther'))}
          </>
        ) : (
          <Group align="flex-start" gap="xl" wrap="wrap">
            <Stack gap="sm" flex={1} miw={260}>
              {picker}
              <Group gap="sm">
                <Button onClick={download} leftSection={<IconDownload size={16} />} data-testid="download-conf">
                  {t('setup.wg.downloadConf')}
                </Button>
                {otherDownloads}
              </Group>
              {configText}
            </Stack>
            {qrCode(220, t('setup.wg.qr'))}
          </Group>
        )}
      </Stack>
    </Card>
  );
}

/** Locations customers knew that take no one now, and why (issue 22): instead of them vanishing from the list. */
const UNAVAILABLE_TEXT = {
  off: 'setup.locationOff',
  retiring: 'setup.locationRetiring',
  full: 'setup.locationFull',
} as const;

/**
 * What a failed add says: a full location (issue 22) in the customer's language, naming the place;
 * anything else as the API said it (field messages first), as the client would have.
 */
export function addErrorText(
  err: unknown,
  start: WgOverview['locations'][number] | undefined,
  t: (key: string, o?: Record<string, string>) => string,
): string {
  const body = errorBodyOf(err);
  if (errorStatus(err) === 409 && body?.errors?.location)
    return start
      ? t('setup.wg.locationFullError', { place: `${start.city}, ${start.country}` })
      : t('setup.wg.allFullError');
  return errorText(body, t('setup.wg.addFailed'));
}

function UnavailableLocations({ locations }: { locations: WgOverview['locations'] }) {
  const { t } = useTranslation();
  const gone = locations.filter((l) => l.unavailable);
  if (!gone.length) return null;
  return (
    <Alert color="orange" variant="light" title={t('setup.wg.unavailableTitle')} data-testid="wg-unavailable-locations">
      <Stack gap={2}>
        {gone.map((l) => (
          <Text size="sm" key={l.slug}>
            {l.city}, {l.country}: {t(UNAVAILABLE_TEXT[l.unavailable!])}
          </Text>
        ))}
      </Stack>
    </Alert>
  );
}

function DeviceRow({
  d,
  onRevoke,
  onRotated,
}: {
  d: WgDevice;
  onRevoke: (d: WgDevice) => void;
  onRotated: (r: RotatedKey) => void;
}) {
  const { t, i18n } = useTranslation();
  const rename = useRenameWgDevice();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(d.name);
  return (
    <Card withBorder padding="md" data-testid="wg-device">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Stack gap={2} miw={0}>
          {editing ? (
            <Group gap="xs">
              <TextInput
                size="xs"
                value={name}
                onChange={(e) => setName(e.currentTarget.value)}
                maxLength={50}
                aria-label={t('setup.wg.name')}
              />
              <Button
                size="xs"
                loading={rename.isPending}
                onClick={() =>
                  rename.mutate(
                    { id: d.id, name },
                    { onSuccess: () => (setEditing(false), snackbar(t('setup.wg.renamed'), { kind: 'success' })) },
                  )
                }
              >
                {t('setup.wg.save')}
              </Button>
              <Button size="xs" variant="subtle" onClick={() => (setEditing(false), setName(d.name))}>
                {t('setup.wg.cancel')}
              </Button>
            </Group>
          ) : (
            <Text fw={600}>{d.name}</Text>
          )}
          <Text size="xs" c="dimmed" className={classes.mono}>
            {d.ipv4} · {d.ipv6}
          </Text>
          {d.serverRetiring && (
            <Alert color="orange" variant="light" mt={6} p="xs" data-testid="wg-server-retiring">
              <Text size="sm">
                {t(d.serverRetiring.why === 'off' ? 'setup.wg.serverOff' : 'setup.wg.serverRetiring', {
                  place: `${d.serverRetiring.city}, ${d.serverRetiring.country}`,
                })}
              </Text>
            </Alert>
          )}
          <Text size="xs" c="dimmed">
            {t('setup.wg.lastHandshake')}:{' '}
            {d.lastHandshakeAt ? new Date(d.lastHandshakeAt).toLocaleString(i18n.language) : t('setup.wg.never')}
            {d.lastHandshakeAt &&
              ` · ${t('setup.wg.transfer', { rx: formatBytes(d.txBytes, i18n.language), tx: formatBytes(d.rxBytes, i18n.language) })}`}
          </Text>
        </Stack>
        {!editing && (
          <Group gap="xs">
            <Button size="xs" variant="default" onClick={() => setEditing(true)}>
              {t('setup.wg.rename')}
            </Button>
            <Button size="xs" color="red" variant="light" onClick={() => onRevoke(d)} data-testid="revoke">
              {t('setup.wg.revoke')}
            </Button>
          </Group>
        )}
      </Group>
      <WgDeviceKey device={d} onRotated={onRotated} />
    </Card>
  );
}

/** /setup/wg: devices (key pair made here), their configs and counters. */
export function WireGuardPage() {
  const { t, i18n } = useTranslation();
  const overview = useWgOverview(i18n.language);
  const { data, error } = overview;
  const add = useAddWgDevice();
  const revoke = useRevokeWgDevice();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [fresh, setFresh] = useState<Fresh | null>(null);

  if (errorStatus(error) === 403) {
    return <Alert color="gray">{t('setup.wg.unavailable')}</Alert>;
  }
  const full = !!data && data.devices.length >= data.limit;

  // The location a new device starts on (the config shown first): its servers must have room.
  const startSlug = data ? initialLocation(data) : null;
  const start = data?.locations.find((l) => l.slug === startSlug);
  const onAdd = async () => {
    const deviceName = name.trim() || 'My device';
    setBusy(true);
    try {
      const keys = await generateWgKeyPair();
      const device = await add.mutateAsync({
        name: deviceName,
        publicKey: keys.publicKey,
        ...(start ? { location: start.slug } : {}),
      });
      setFresh({ device, privateKey: keys.privateKey });
      setName('');
    } catch (err) {
      snackbar(addErrorText(err, start, t));
    } finally {
      setBusy(false);
    }
  };

  // A rotated key's configuration is shown like a new device's, above the list: brought into view,
  // and the focus (left on the rotate button, far below) moved to its title.
  const onRotated = (r: RotatedKey) => {
    setFresh({ ...r, rotated: true });
    requestAnimationFrame(() => {
      const title = document.querySelector<HTMLElement>('[data-testid="fresh-config-title"]');
      title?.focus({ preventScroll: true });
      document.querySelector('[data-testid="fresh-config"]')?.scrollIntoView?.({ block: 'start', behavior: 'smooth' });
    });
  };

  const onRevoke = (d: WgDevice) =>
    openConfirm({
      title: t('setup.wg.revokeTitle', { name: d.name }),
      body: t('setup.wg.revokeText'),
      confirmLabel: t('setup.wg.revoke'),
      cancelLabel: t('setup.wg.cancel'),
      danger: true,
      confirmTestId: 'confirm-revoke',
      onConfirm: () =>
        revoke.mutate(
          { id: d.id },
          {
            onSuccess: () => {
              if (fresh?.device.id === d.id) setFresh(null);
              snackbar(t('setup.wg.revoked'), { kind: 'success' });
            },
          },
        ),
    });

  return (
    <Stack gap="lg">
      <div>
        <Title order={2} fz={24}>
          {t('titles.wireguard')}
        </Title>
        <Group gap={6} mt={4} wrap="nowrap" align="flex-start">
          <IconShield size={16} />
          <Text c="dimmed" size="sm">
            {t('setup.wg.intro')}
          </Text>
        </Group>
      </div>
      {!data && overview.isError ? (
        <ErrorState
          message={t('states.wgFailed')}
          onRetry={() => void overview.refetch()}
          retrying={overview.isFetching}
        />
      ) : !data ? (
        <LoadingState label={t('states.wgLoading')} />
      ) : (
        <>
          {data.access === 'none' && <Alert color="red">{t('setup.wg.inactive')}</Alert>}
          {data.access !== 'none' && (
            <Card withBorder padding="lg">
              <Group align="flex-end" gap="sm" wrap="wrap">
                <TextInput
                  label={t('setup.wg.name')}
                  placeholder={t('setup.wg.namePlaceholder')}
                  value={name}
                  onChange={(e) => setName(e.currentTarget.value)}
                  maxLength={50}
                  flex={1}
                  miw={220}
                  disabled={full}
                  onKeyDown={(e) => e.key === 'Enter' && !full && void onAdd()}
                />
                <Button onClick={onAdd} loading={busy} disabled={full} data-testid="add-device">
                  {t('setup.wg.add')}
                </Button>
              </Group>
              {full && (
                <Group justify="space-between" mt="sm" wrap="wrap">
                  <Text size="sm" c="dimmed">
                    {t('setup.wg.limitReached')}
                  </Text>
                  {data.access === 'free' && (
                    <Button component={Link} to="/plans" size="xs" leftSection={<IconCrown size={14} />}>
                      {t('setup.upgrade')}
                    </Button>
                  )}
                </Group>
              )}
            </Card>
          )}
          <UnavailableLocations locations={data.locations} />
          {fresh && data.devices.some((d) => d.id === fresh.device.id) && <FreshConfig fresh={fresh} overview={data} />}
          <Stack gap="sm">
            <Group justify="space-between">
              <Title order={3} fz={18}>
                {t('setup.wg.devices')}
              </Title>
              <Badge variant="light">{t('setup.wg.limit', { used: data.devices.length, limit: data.limit })}</Badge>
            </Group>
            {data.devices.length === 0 ? (
              <Text c="dimmed">{t('setup.wg.none')}</Text>
            ) : (
              <SimpleGrid cols={1} spacing="sm">
                {data.devices.map((d) => (
                  <DeviceRow key={d.id} d={d} onRevoke={onRevoke} onRotated={onRotated} />
                ))}
              </SimpleGrid>
            )}
            {data.devices.length > 0 && !fresh && (
              <Text size="xs" c="dimmed">
                {t('setup.wg.noConfig')}
              </Text>
            )}
          </Stack>
        </>
      )}
    </Stack>
  );
}
