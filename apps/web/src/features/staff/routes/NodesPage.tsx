import { useState } from 'react';
import { Badge, Button, Card, Group, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
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
        {s.certNotAfter ? t('nodes.stealthCert', { date: formatDay(s.certNotAfter, i18n.language) }) : t('nodes.stealthCertUnknown')}
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
    const text = [l.slug, l.countryCode, l.country, l.city, ...l.nodes.flatMap((n) => [n.name, n.endpointHost])].join(' ').toLowerCase();
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
            <Button onClick={() => setDialog({ kind: 'node', location: null })} disabled={!locations.data?.length} data-testid="add-node">
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
          return (
            <Stack gap="md">
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
                shown.map((l) => <LocationCard key={l.slug} location={l} admin={admin} onAddNode={() => setDialog({ kind: 'node', location: l.slug })} onToken={setToken} />)
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

function LocationCard({ location: l, admin, onAddNode, onToken }: { location: StaffLocation; admin: boolean; onAddNode: () => void; onToken: (v: { node: string; token: string }) => void }) {
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
      onConfirm: () => update.mutate({ slug: l.slug, [field]: next }, { onSuccess: () => snackbar(t('done.saved'), { kind: 'success' }) }),
    });
  };
  const flipNode = (n: StaffNode) =>
    openConfirm({
      title: t(n.enabled ? 'nodes.disableTitle' : 'nodes.enableTitle', { node: n.name }),
      body: t(n.enabled ? 'nodes.disableBody' : 'nodes.enableBody'),
      confirmLabel: n.enabled ? t('nodes.disable') : t('nodes.enable'),
      cancelLabel: t('common.cancel'),
      danger: n.enabled,
      onConfirm: () => updateNode.mutate({ name: n.name, enabled: !n.enabled }, { onSuccess: () => snackbar(t('done.saved'), { kind: 'success' }) }),
    });
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
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby={headingId} data-testid={`location-${l.slug}`}>
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
            <Switch label={t('nodes.enabled')} checked={l.enabled} onChange={() => flip('enabled')} disabled={update.isPending || l.nodes.length === 0} />
            <Switch label={t('nodes.premium')} checked={l.premium} onChange={() => flip('premium')} disabled={update.isPending} />
            <Switch label={t('nodes.visible')} checked={l.visible} onChange={() => flip('visible')} disabled={update.isPending} />
            <Button size="compact-sm" variant="light" onClick={onAddNode} aria-label={`${t('nodes.addNode')}: ${l.slug}`}>
              {t('nodes.addNode')}
            </Button>
          </Group>
        ) : (
          <Group gap={4}>
            {!l.enabled && <Badge color="gray" variant="outline" radius="sm">{t('nodes.off')}</Badge>}
            {l.premium && <Badge color="yellow" variant="light" radius="sm">{t('nodes.premium')}</Badge>}
            {!l.visible && <Badge color="gray" variant="light" radius="sm">{t('nodes.hidden')}</Badge>}
          </Group>
        )}
      </Group>
      {l.nodes.length === 0 ? (
        <EmptyState message={t('nodes.noNodes')} />
      ) : (
        <StaffTable
          label={t('nodes.nodesOf', { location: l.slug })}
          minWidth={1060}
          head={[t('nodes.colNode'), t('nodes.colStatus'), t('nodes.colLastReport'), t('nodes.colPeers'), t('nodes.colLoad'), t('nodes.colAgent'), t('nodes.colStealth'), t('nodes.colError'), ...(admin ? [t('nodes.colActions')] : [])]}
        >
          {l.nodes.map((n) => {
            const health = n.online ? 'online' : n.lastSeenAt ? 'stale' : 'never';
            return (
              <Table.Tr key={n.name} data-testid={`node-${n.name}`}>
                <Table.Td>
                  <Text size="sm" fw={600}>
                    {n.name}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {n.endpointHost}:{n.listenPort}
                  </Text>
                </Table.Td>
                <Table.Td style={{ minWidth: 150 }}>
                  <Group gap={4}>
                    <Badge color={HEALTH_COLOR[health]} variant="light" radius="sm">
                      {t(`nodes.health.${health}`)}
                    </Badge>
                    {!n.enabled && (
                      <Badge color="gray" variant="outline" radius="sm">
                        {t('nodes.off')}
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
                </Table.Td>
                <Table.Td title={formatWhen(n.lastSeenAt, i18n.language)}>{n.lastSeenAt ? formatAgo(n.lastSeenAt, i18n.language) : t('customer.never')}</Table.Td>
                <Table.Td>{n.lastSeenAt ? n.activePeers : '—'}</Table.Td>
                <Table.Td>{n.load === null ? '—' : `${Math.round(n.load)}%`}</Table.Td>
                <Table.Td>{n.agentVersion ?? '—'}</Table.Td>
                <Table.Td style={{ minWidth: 160 }} data-testid={`stealth-${n.name}`}>
                  <StealthCore stealth={n.stealth} />
                </Table.Td>
                <Table.Td style={{ maxWidth: 220 }}>
                  {n.lastApplyError ? (
                    <Text size="xs" c="red" style={{ overflowWrap: 'anywhere' }}>
                      {n.lastApplyError}
                    </Text>
                  ) : (
                    '—'
                  )}
                </Table.Td>
                {admin && (
                <Table.Td>
                  <Group gap={4} wrap="nowrap">
                    <Button size="compact-xs" variant="light" color={n.enabled ? 'red' : undefined} onClick={() => flipNode(n)} aria-label={`${n.enabled ? t('nodes.disable') : t('nodes.enable')}: ${n.name}`}>
                      {n.enabled ? t('nodes.disable') : t('nodes.enable')}
                    </Button>
                    <Button size="compact-xs" variant="light" color="orange" loading={issue.isPending && issue.variables?.name === n.name} onClick={() => newToken(n)} aria-label={`${t('nodes.newToken')}: ${n.name}`}>
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
