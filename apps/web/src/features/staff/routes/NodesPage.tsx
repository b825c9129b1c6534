import { useState } from 'react';
import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import '@mantine/core/styles/SimpleGrid.layer.css';
import '@mantine/core/styles/Switch.layer.css';
import '@mantine/core/styles/Table.layer.css';
import { useTranslation } from 'react-i18next';
import type { StaffLocation, StaffNode } from '@warren/contract';
import { EmptyState, QueryState } from '../../../components/QueryState';
import { openConfirm } from '../../../lib/confirm';
import { snackbar } from '../../../lib/notify';
import { useAddLocation } from '../api/add-location';
import { useAddNode } from '../api/add-node';
import { useLocations } from '../api/get-locations';
import { useIssueNodeToken } from '../api/issue-node-token';
import { useUpdateLocation } from '../api/update-location';
import { useUpdateNode } from '../api/update-node';
import { AddLocationDialog, AddNodeDialog } from '../components/LocationDialogs';
import { StaffTable } from '../components/StaffTable';
import { TokenDialog } from '../components/TokenDialog';
import { STAFF_NS } from '../lib/i18n';
import { formatAgo, formatDay, formatWhen } from '../lib/format';
import { type FleetSummary, fleetSummary, splitLocations } from '../lib/fleet';
import classes from './staff.module.css';
import { can } from '../lib/permissions';
import { useStaffMe } from './StaffConsole';

const HEALTH_COLOR = { online: 'teal', stale: 'orange', never: 'gray' } as const;
/** A stealth certificate this close to its end is shown in orange (the metrics alert at the same 14 days). */
const CERT_SOON_MS = 14 * 86_400_000;

/** The node's stealth core as its agent reported it: up or down, version, customers loaded, certificate end. */
function StealthCore({ stealth: s }: { stealth: StaffNode['stealth'] }) {
  const { t, i18n } = useTranslation(STAFF_NS);
  if (!s) return <>—</>;
  const left = s.certNotAfter ? new Date(s.certNotAfter).getTime() - Date.now() : null;
  return (
    <Stack gap={2}>
      <Group gap={4}>
        <Badge color={s.up ? 'teal' : 'red'} variant="light" radius="sm">
          {s.up ? t('nodes.stealthUp') : t('nodes.stealthDown')}
        </Badge>
        <Text size="xs">{s.version ?? '—'}</Text>
      </Group>
      <Text size="xs">{t('nodes.stealthUsers', { count: s.users })}</Text>
      <Text size="xs" c={left === null || left < 0 ? 'red' : left < CERT_SOON_MS ? 'orange' : 'dimmed'}>
        {s.certNotAfter
          ? t('nodes.stealthCert', { date: formatDay(s.certNotAfter, i18n.language) })
          : t('nodes.stealthCertUnknown')}
      </Text>
      <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
        {s.host}:{s.port}
      </Text>
    </Stack>
  );
}

/** Locations whose slug, country, city or a node's name or host contains the words typed (36 seeded ones make a long page). */
export function filterLocations(list: StaffLocation[], query: string): StaffLocation[] {
  const words = query.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return list;
  return list.filter((l) => {
    const text = [l.slug, l.countryCode, l.country, l.city, ...l.nodes.flatMap((n) => [n.name, n.endpointHost])]
      .join(' ')
      .toLowerCase();
    return words.every((w) => text.includes(w));
  });
}

/** /staff/nodes (admin): locations and their nodes with live status; add, switch, issue tokens. */
export function NodesPage() {
  const { t } = useTranslation(STAFF_NS);
  const me = useStaffMe();
  const admin = can(me.role, 'manageNodes');
  const locations = useLocations();
  const addLocation = useAddLocation();
  const addNode = useAddNode();
  const [dialog, setDialog] = useState<{ kind: 'location' } | { kind: 'node'; location: string | null } | null>(null);
  const [token, setToken] = useState<{ node: string; token: string } | null>(null);
  const [query, setQuery] = useState('');
  const close = () => {
    setDialog(null);
    addLocation.reset();
    addNode.reset();
  };
  return (
    <Stack gap="lg">
      <Group justify="space-between" gap="sm">
        <Title order={1} fz={24}>
          {t('nodes.title')}
        </Title>
        {admin && (
          <Group gap="xs">
            <Button variant="default" onClick={() => setDialog({ kind: 'location' })} data-testid="add-location">
              {t('nodes.addLocation')}
            </Button>
            <Button
              onClick={() => setDialog({ kind: 'node', location: null })}
              disabled={!locations.data?.length}
              data-testid="add-node"
            >
              {t('nodes.addNode')}
            </Button>
          </Group>
        )}
      </Group>
      <Text size="sm" c="dimmed">
        {t('nodes.intro')}
      </Text>
      <QueryState query={locations} loading={t('nodes.loading')} error={t('nodes.loadFailed')}>
        {(list) => {
          if (list.length === 0) return <EmptyState message={t('nodes.noLocations')} />;
          const shown = filterLocations(list, query);
          const { withNodes, empty } = splitLocations(shown);
          return (
            <Stack gap="md">
              <FleetSummaryCard summary={fleetSummary(list)} />
              <TextInput
                label={t('nodes.filter')}
                placeholder={t('nodes.filterPlaceholder')}
                value={query}
                onChange={(e) => setQuery(e.currentTarget.value)}
                maxLength={100}
                maw={420}
                data-testid="nodes-filter"
              />
              <Text size="sm" c="dimmed" aria-live="polite" data-testid="nodes-count">
                {t('nodes.shown', { count: shown.length, total: list.length })}
              </Text>
              {shown.length === 0 ? (
                <EmptyState message={t('nodes.noMatch')} />
              ) : (
                <>
                  {withNodes.map((l) => (
                    <LocationCard
                      key={l.slug}
                      location={l}
                      admin={admin}
                      onAddNode={() => setDialog({ kind: 'node', location: l.slug })}
                      onToken={setToken}
                    />
                  ))}
                  {empty.length > 0 && (
                    <EmptyLocations
                      locations={empty}
                      admin={admin}
                      openFirst={!!query.trim() && withNodes.length === 0 && empty.length === 1}
                      onAddNode={(slug) => setDialog({ kind: 'node', location: slug })}
                      onToken={setToken}
                    />
                  )}
                </>
              )}
            </Stack>
          );
        }}
      </QueryState>
      {dialog?.kind === 'location' && (
        <AddLocationDialog
          onClose={close}
          pending={addLocation.isPending}
          error={addLocation.error}
          onSubmit={(v) =>
            addLocation.mutate(v, {
              onSuccess: () => {
                close();
                // The new location has no node yet: shown on its own, opened, to add one.
                setQuery(v.slug);
                snackbar(t('done.addLocation', { slug: v.slug }), { kind: 'success' });
              },
            })
          }
        />
      )}
      {dialog?.kind === 'node' && locations.data && (
        <AddNodeDialog
          locations={locations.data}
          location={dialog.location}
          onClose={close}
          pending={addNode.isPending}
          error={addNode.error}
          onSubmit={(v) =>
            addNode.mutate(v, {
              onSuccess: (res) => {
                close();
                setToken({ node: res.node.name, token: res.token });
              },
            })
          }
        />
      )}
      {token && <TokenDialog node={token.node} token={token.token} onClose={() => setToken(null)} />}
    </Stack>
  );
}

/** The fleet at a glance (issue 22): what is online, how loaded, which agent versions, what fails to apply. */
function FleetSummaryCard({ summary: f }: { summary: FleetSummary }) {
  const { t } = useTranslation(STAFF_NS);
  const tiles: { label: string; value: string; hint?: string; tone?: 'red' | 'orange' }[] = [
    {
      label: t('fleet.online'),
      value: t('fleet.ofNodes', { online: f.online, count: f.nodes }),
      hint:
        [
          f.offline && t('fleet.offline', { count: f.offline }),
          f.neverReported && t('fleet.never', { count: f.neverReported }),
        ]
          .filter(Boolean)
          .join(' · ') || undefined,
      tone: f.offline ? 'red' : undefined,
    },
    { label: t('fleet.peers'), value: String(f.activePeers) },
    {
      label: t('fleet.load'),
      value: f.averageLoad === null ? '—' : `${f.averageLoad}%`,
      hint: f.busiest ? t('fleet.busiest', { node: f.busiest.name, load: f.busiest.load }) : undefined,
      tone: f.busiest && f.busiest.load >= 80 ? 'orange' : undefined,
    },
    { label: t('fleet.drainingOff'), value: `${f.draining} / ${f.switchedOff}`, hint: t('fleet.drainingOffHint') },
    {
      label: t('fleet.capacity'),
      value: t('fleet.capacityValue', { count: f.wireguardFull }),
      hint: f.fullest
        ? [
            t('fleet.fullest', { node: f.fullest.name, percent: f.fullest.percent }),
            f.refusedPeers && t('fleet.refused', { count: f.refusedPeers }),
          ]
            .filter(Boolean)
            .join(' · ')
        : t('fleet.noCaps'),
      tone: f.refusedPeers || f.wireguardFull ? 'red' : f.fullest && f.fullest.percent >= 80 ? 'orange' : undefined,
    },
  ];
  return (
    <Card
      withBorder
      radius="lg"
      padding="lg"
      component="section"
      aria-labelledby="fleet-title"
      data-testid="fleet-summary"
    >
      <Title order={2} fz={18} id="fleet-title" mb="sm">
        {t('fleet.title')}
      </Title>
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }} spacing="sm">
        {tiles.map((tile) => (
          <div key={tile.label} className={classes.tile}>
            <Text size="xs" c="dimmed" fw={600}>
              {tile.label}
            </Text>
            <Text
              fz={22}
              fw={700}
              c={tile.tone ? `${tile.tone}.7` : undefined}
              style={{ fontVariantNumeric: 'tabular-nums' }}
            >
              {tile.value}
            </Text>
            {tile.hint && (
              <Text size="xs" c="dimmed">
                {tile.hint}
              </Text>
            )}
          </div>
        ))}
      </SimpleGrid>
      <Group gap={6} mt="md" wrap="wrap" data-testid="fleet-versions">
        <Text size="sm" fw={600}>
          {t('fleet.versions')}
        </Text>
        {f.versions.length === 0 ? (
          <Text size="sm" c="dimmed">
            {t('fleet.noReports')}
          </Text>
        ) : (
          f.versions.map((v) => (
            <Badge
              key={String(v.version)}
              variant="light"
              color={f.versions.length > 1 ? 'orange' : 'gray'}
              radius="sm"
              tt="none"
            >
              {t('fleet.version', { version: v.version ?? t('fleet.unknownVersion'), count: v.nodes })}
            </Badge>
          ))
        )}
      </Group>
      {f.applyErrors.length > 0 ? (
        <Alert
          color="red"
          variant="light"
          mt="md"
          title={t('fleet.applyErrors', { count: f.applyErrors.length })}
          data-testid="fleet-apply-errors"
        >
          <Stack gap={4}>
            {f.applyErrors.map((e) => (
              <Text size="sm" key={e.name} style={{ overflowWrap: 'anywhere' }}>
                <b>{e.name}</b> ({e.location}): {e.error}
              </Text>
            ))}
          </Stack>
        </Alert>
      ) : (
        <Text size="sm" c="dimmed" mt="sm">
          {t('fleet.noApplyErrors')}
        </Text>
      )}
    </Card>
  );
}

/** A node's WireGuard capacity (issue 22): peers of the cap, the implementation, full and refused peers. */
function WireguardCapacity({ wg }: { wg: StaffNode['wireguard'] }) {
  const { t, i18n } = useTranslation(STAFF_NS);
  if (!wg) return <>—</>;
  const num = (n: number) => n.toLocaleString(i18n.language);
  return (
    <Stack gap={2}>
      <Text size="sm" style={{ fontVariantNumeric: 'tabular-nums', whiteSpace: 'nowrap' }}>
        {t('nodes.capacityOf', { peers: num(wg.peers), max: num(wg.maxPeers) })}
      </Text>
      <Group gap={6} className={classes.badges}>
        {wg.full && (
          <Badge
            color="red"
            variant="light"
            radius="sm"
            title={t('nodes.fullHint', { limit: num(wg.limit) })}
            data-testid="node-full"
          >
            {t('nodes.full')}
          </Badge>
        )}
        <Text size="xs" c="dimmed">
          {wg.kind === 'kernel' ? t('nodes.kindKernel') : t('nodes.kindUserspace')}
        </Text>
      </Group>
      {wg.refused > 0 && (
        <Text size="xs" c="red" fw={600}>
          {t('nodes.refused', { count: wg.refused })}
        </Text>
      )}
    </Stack>
  );
}

/** Locations without nodes: one compact list (36 seeded ones were a 6,700 px page); one opens as a full card to add its node or switch it. */
function EmptyLocations({
  locations,
  admin,
  openFirst,
  onAddNode,
  onToken,
}: {
  locations: StaffLocation[];
  admin: boolean;
  openFirst: boolean;
  onAddNode: (slug: string) => void;
  onToken: (v: { node: string; token: string }) => void;
}) {
  const { t } = useTranslation(STAFF_NS);
  const [shown, setShown] = useState(false);
  const [opened, setOpened] = useState<string | null>(null);
  const open = locations.find((l) => l.slug === opened) ?? (openFirst ? locations[0] : undefined);
  return (
    <Card
      withBorder
      radius="lg"
      padding="lg"
      component="section"
      aria-labelledby="empty-locations"
      data-testid="empty-locations"
    >
      <Group justify="space-between" gap="sm">
        <div>
          <Title order={2} fz={18} id="empty-locations">
            {t('nodes.emptyTitle', { count: locations.length })}
          </Title>
          <Text size="sm" c="dimmed">
            {t('nodes.emptyIntro')}
          </Text>
        </div>
        <Button
          variant="default"
          size="compact-sm"
          onClick={() => setShown((v) => !v)}
          aria-expanded={shown}
          aria-controls="empty-locations-list"
          data-testid="empty-locations-toggle"
        >
          {shown ? t('nodes.emptyHide') : t('nodes.emptyShow')}
        </Button>
      </Group>
      {shown && (
        <Group gap={6} mt="sm" id="empty-locations-list" wrap="wrap">
          {locations.map((l) => (
            <Button
              key={l.slug}
              size="compact-xs"
              variant={open?.slug === l.slug ? 'filled' : 'light'}
              color="gray"
              onClick={() => setOpened(open?.slug === l.slug ? null : l.slug)}
              aria-pressed={open?.slug === l.slug}
              data-testid={`empty-${l.slug}`}
            >
              {l.city}, {l.countryCode}
              {!l.visible && ` · ${t('nodes.hidden')}`}
            </Button>
          ))}
        </Group>
      )}
      {open && (
        <div className={classes.emptyOpen}>
          <LocationCard location={open} admin={admin} onAddNode={() => onAddNode(open.slug)} onToken={onToken} />
        </div>
      )}
    </Card>
  );
}

function LocationCard({
  location: l,
  admin,
  onAddNode,
  onToken,
}: {
  location: StaffLocation;
  admin: boolean;
  onAddNode: () => void;
  onToken: (v: { node: string; token: string }) => void;
}) {
  const { t, i18n } = useTranslation(STAFF_NS);
  const update = useUpdateLocation();
  const updateNode = useUpdateNode();
  const issue = useIssueNodeToken();
  const flip = (field: 'enabled' | 'premium' | 'visible') => {
    const next = !l[field];
    openConfirm({
      title: t(`nodes.${field}${next ? 'On' : 'Off'}Title`, { location: l.slug }),
      body: t(`nodes.${field}${next ? 'On' : 'Off'}Body`),
      confirmLabel: t('common.confirm'),
      cancelLabel: t('common.cancel'),
      danger: field === 'enabled' && !next,
      onConfirm: () =>
        update.mutate(
          { slug: l.slug, [field]: next },
          { onSuccess: () => snackbar(t('done.saved'), { kind: 'success' }) },
        ),
    });
  };
  const flipNode = (n: StaffNode) =>
    openConfirm({
      title: t(n.enabled ? 'nodes.disableTitle' : 'nodes.enableTitle', { node: n.name }),
      body: t(n.enabled ? 'nodes.disableBody' : 'nodes.enableBody'),
      confirmLabel: n.enabled ? t('nodes.disable') : t('nodes.enable'),
      cancelLabel: t('common.cancel'),
      danger: n.enabled,
      onConfirm: () =>
        updateNode.mutate(
          { name: n.name, enabled: !n.enabled },
          { onSuccess: () => snackbar(t('done.saved'), { kind: 'success' }) },
        ),
    });
  const drain = (n: StaffNode) => {
    const next = !n.drainingSince;
    openConfirm({
      title: t(next ? 'nodes.drainTitle' : 'nodes.undrainTitle', { node: n.name }),
      body: t(next ? 'nodes.drainBody' : 'nodes.undrainBody'),
      confirmLabel: next ? t('nodes.drain') : t('nodes.undrain'),
      cancelLabel: t('common.cancel'),
      danger: next,
      onConfirm: () =>
        updateNode.mutate(
          { name: n.name, draining: next },
          {
            onSuccess: () => snackbar(t(next ? 'done.draining' : 'done.saved', { node: n.name }), { kind: 'success' }),
          },
        ),
    });
  };
  const newToken = (n: StaffNode) =>
    openConfirm({
      title: t('nodes.newTokenTitle', { node: n.name }),
      body: t('nodes.newTokenBody'),
      confirmLabel: t('nodes.newToken'),
      cancelLabel: t('common.cancel'),
      danger: true,
      onConfirm: () =>
        issue.mutate(
          { name: n.name },
          {
            onSuccess: (res) => {
              onToken({ node: res.node.name, token: res.token });
              // The dialog holds it now; the mutation lets go of it.
              issue.reset();
            },
          },
        ),
    });
  const headingId = `location-${l.slug}`;
  return (
    <Card
      withBorder
      radius="lg"
      padding="lg"
      component="section"
      aria-labelledby={headingId}
      data-testid={`location-${l.slug}`}
    >
      <Group justify="space-between" gap="sm" mb="sm">
        <div>
          <Title order={2} fz={18} id={headingId}>
            {l.city}, {l.country}
          </Title>
          <Text size="xs" c="dimmed">
            {l.slug} · {l.countryCode}
          </Text>
        </div>
        {admin ? (
          <Group gap="md">
            <Switch
              label={t('nodes.enabled')}
              checked={l.enabled}
              onChange={() => flip('enabled')}
              disabled={update.isPending || l.nodes.length === 0}
            />
            <Switch
              label={t('nodes.premium')}
              checked={l.premium}
              onChange={() => flip('premium')}
              disabled={update.isPending}
            />
            <Switch
              label={t('nodes.visible')}
              checked={l.visible}
              onChange={() => flip('visible')}
              disabled={update.isPending}
            />
            <Button
              size="compact-sm"
              variant="light"
              onClick={onAddNode}
              aria-label={`${t('nodes.addNode')}: ${l.slug}`}
            >
              {t('nodes.addNode')}
            </Button>
          </Group>
        ) : (
          <Group gap={4}>
            {!l.enabled && (
              <Badge color="gray" variant="outline" radius="sm">
                {t('nodes.off')}
              </Badge>
            )}
            {l.premium && (
              <Badge color="yellow" variant="light" radius="sm">
                {t('nodes.premium')}
              </Badge>
            )}
            {!l.visible && (
              <Badge color="gray" variant="light" radius="sm">
                {t('nodes.hidden')}
              </Badge>
            )}
          </Group>
        )}
      </Group>
      {l.nodes.length === 0 ? (
        <EmptyState message={t('nodes.noNodes')} />
      ) : (
        <StaffTable
          label={t('nodes.nodesOf', { location: l.slug })}
          minWidth={1060}
          stacked
          head={[
            t('nodes.colNode'),
            t('nodes.colStatus'),
            t('nodes.colLastReport'),
            t('nodes.colPeers'),
            t('nodes.colCapacity'),
            t('nodes.colLoad'),
            t('nodes.colAgent'),
            t('nodes.colStealth'),
            t('nodes.colError'),
            ...(admin ? [t('nodes.colActions')] : []),
          ]}
        >
          {l.nodes.map((n) => {
            const health = n.online ? 'online' : n.lastSeenAt ? 'stale' : 'never';
            return (
              <Table.Tr key={n.name} data-testid={`node-${n.name}`}>
                <Table.Td data-label={t('nodes.colNode')}>
                  <Text size="sm" fw={600}>
                    {n.name}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {n.endpointHost}:{n.listenPort}
                  </Text>
                </Table.Td>
                <Table.Td data-label={t('nodes.colStatus')} style={{ minWidth: 150 }}>
                  <Group gap={4} className={classes.badges}>
                    <Badge color={HEALTH_COLOR[health]} variant="light" radius="sm">
                      {t(`nodes.health.${health}`)}
                    </Badge>
                    {!n.enabled && (
                      <Badge color="gray" variant="outline" radius="sm">
                        {t('nodes.off')}
                      </Badge>
                    )}
                    {n.enabled && n.drainingSince && (
                      // The badge says what, the line under it since when: one long badge was cut to "DRAINING SIN…" in the table.
                      <Badge
                        color="orange"
                        variant="light"
                        radius="sm"
                        title={t('nodes.draining', { since: formatWhen(n.drainingSince, i18n.language) })}
                        data-testid="node-draining"
                      >
                        {t('nodes.drainingBadge')}
                      </Badge>
                    )}
                    {n.demo && (
                      <Badge color="violet" variant="outline" radius="sm">
                        {t('nodes.demo')}
                      </Badge>
                    )}
                    {!n.hasToken && (
                      <Badge color="orange" variant="outline" radius="sm">
                        {t('nodes.noToken')}
                      </Badge>
                    )}
                  </Group>
                  {n.enabled && n.drainingSince && (
                    <Text size="xs" c="dimmed" mt={2} data-testid="node-draining-since">
                      {t('nodes.drainingSinceShort', { since: formatAgo(n.drainingSince, i18n.language) })}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td data-label={t('nodes.colLastReport')} title={formatWhen(n.lastSeenAt, i18n.language)}>
                  {n.lastSeenAt ? formatAgo(n.lastSeenAt, i18n.language) : t('customer.never')}
                </Table.Td>
                <Table.Td data-label={t('nodes.colPeers')}>{n.lastSeenAt ? n.activePeers : '—'}</Table.Td>
                <Table.Td
                  data-label={t('nodes.colCapacity')}
                  style={{ minWidth: 150 }}
                  data-testid={`capacity-${n.name}`}
                >
                  <WireguardCapacity wg={n.wireguard} />
                </Table.Td>
                <Table.Td data-label={t('nodes.colLoad')}>{n.load === null ? '—' : `${Math.round(n.load)}%`}</Table.Td>
                <Table.Td data-label={t('nodes.colAgent')}>{n.agentVersion ?? '—'}</Table.Td>
                <Table.Td
                  data-label={t('nodes.colStealth')}
                  style={{ minWidth: 160 }}
                  data-testid={`stealth-${n.name}`}
                >
                  <StealthCore stealth={n.stealth} />
                </Table.Td>
                <Table.Td data-label={t('nodes.colError')} style={{ maxWidth: 220 }}>
                  {n.lastApplyError ? (
                    <Text size="xs" c="red" style={{ overflowWrap: 'anywhere' }}>
                      {n.lastApplyError}
                    </Text>
                  ) : (
                    '—'
                  )}
                </Table.Td>
                {admin && (
                  <Table.Td data-label={t('nodes.colActions')}>
                    <Group gap={4} wrap="wrap">
                      <Button
                        size="compact-xs"
                        variant="light"
                        color={n.enabled ? 'red' : undefined}
                        onClick={() => flipNode(n)}
                        aria-label={`${n.enabled ? t('nodes.disable') : t('nodes.enable')}: ${n.name}`}
                      >
                        {n.enabled ? t('nodes.disable') : t('nodes.enable')}
                      </Button>
                      {n.enabled && (
                        <Button
                          size="compact-xs"
                          variant="light"
                          color={n.drainingSince ? undefined : 'orange'}
                          onClick={() => drain(n)}
                          aria-label={`${n.drainingSince ? t('nodes.undrain') : t('nodes.drain')}: ${n.name}`}
                          data-testid={`drain-${n.name}`}
                        >
                          {n.drainingSince ? t('nodes.undrain') : t('nodes.drain')}
                        </Button>
                      )}
                      <Button
                        size="compact-xs"
                        variant="light"
                        color="orange"
                        loading={issue.isPending && issue.variables?.name === n.name}
                        onClick={() => newToken(n)}
                        aria-label={`${t('nodes.newToken')}: ${n.name}`}
                      >
                        {t('nodes.newToken')}
                      </Button>
                    </Group>
                  </Table.Td>
                )}
              </Table.Tr>
            );
          })}
        </StaffTable>
      )}
    </Card>
  );
}
