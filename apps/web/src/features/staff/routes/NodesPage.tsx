import { useState } from 'react';
import { Badge, Button, Card, Group, Stack, Switch, Table, Text, Title } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import '@mantine/core/styles/Switch.layer.css';
import { useTranslation } from 'react-i18next';
import { EmptyState, QueryState } from '../../../components/QueryState';
import { openConfirm } from '../../../lib/confirm';
import { snackbar } from '../../../lib/notify';
import { useAddLocation } from '../api/add-location';
import { useAddNode } from '../api/add-node';
import { useLocations } from '../api/get-locations';
import { useIssueNodeToken } from '../api/issue-node-token';
import type { StaffLocation, StaffNode } from '../api/types';
import { useUpdateLocation } from '../api/update-location';
import { useUpdateNode } from '../api/update-node';
import { AddLocationDialog, AddNodeDialog } from '../components/LocationDialogs';
import { StaffTable } from '../components/StaffTable';
import { TokenDialog } from '../components/TokenDialog';
import { STAFF_NS } from '../lib/i18n';
import { formatAgo, formatWhen, nodeHealth } from '../lib/format';
import { RoleGate } from '../components/RoleGate';
import { useStaffMe } from './StaffConsole';

const HEALTH_COLOR = { online: 'teal', stale: 'orange', never: 'gray' } as const;

/** /staff/nodes (admin): locations and their nodes with live status; add, switch, issue tokens. */
export function NodesPage() {
  const me = useStaffMe();
  return (
    <RoleGate role={me.role} ability="nodes">
      <Nodes />
    </RoleGate>
  );
}

function Nodes() {
  const { t } = useTranslation(STAFF_NS);
  const locations = useLocations();
  const addLocation = useAddLocation();
  const addNode = useAddNode();
  const [dialog, setDialog] = useState<{ kind: 'location' } | { kind: 'node'; locationId: number | null } | null>(null);
  const [token, setToken] = useState<{ node: string; token: string } | null>(null);
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
        <Group gap="xs">
          <Button variant="default" onClick={() => setDialog({ kind: 'location' })}>
            {t('nodes.addLocation')}
          </Button>
          <Button onClick={() => setDialog({ kind: 'node', locationId: null })} disabled={!locations.data?.length}>
            {t('nodes.addNode')}
          </Button>
        </Group>
      </Group>
      <Text size="sm" c="dimmed">
        {t('nodes.intro')}
      </Text>
      <QueryState query={locations} loading={t('nodes.loading')} error={t('nodes.loadFailed')}>
        {(list) =>
          list.length === 0 ? (
            <EmptyState message={t('nodes.noLocations')} />
          ) : (
            <Stack gap="md">
              {list.map((l) => (
                <LocationCard key={l.id} location={l} onAddNode={() => setDialog({ kind: 'node', locationId: l.id })} onToken={setToken} />
              ))}
            </Stack>
          )
        }
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
          locationId={dialog.locationId}
          onClose={close}
          pending={addNode.isPending}
          error={addNode.error}
          onSubmit={(v) =>
            addNode.mutate(v, {
              onSuccess: (res) => {
                close();
                setToken({ node: v.name, token: res.token });
              },
            })
          }
        />
      )}
      {token && <TokenDialog node={token.node} token={token.token} onClose={() => setToken(null)} />}
    </Stack>
  );
}

function LocationCard({ location: l, onAddNode, onToken }: { location: StaffLocation; onAddNode: () => void; onToken: (v: { node: string; token: string }) => void }) {
  const { t, i18n } = useTranslation(STAFF_NS);
  const update = useUpdateLocation();
  const updateNode = useUpdateNode();
  const issue = useIssueNodeToken();
  const flip = (field: 'premium' | 'visible') => {
    const next = !l[field];
    openConfirm({
      title: t(`nodes.${field}${next ? 'On' : 'Off'}Title`, { location: l.slug }),
      body: t(`nodes.${field}${next ? 'On' : 'Off'}Body`),
      confirmLabel: t('common.confirm'),
      cancelLabel: t('common.cancel'),
      onConfirm: () => update.mutate({ id: l.id, [field]: next }, { onSuccess: () => snackbar(t('done.saved'), { kind: 'success' }) }),
    });
  };
  const flipNode = (n: StaffNode) =>
    openConfirm({
      title: t(n.enabled ? 'nodes.disableTitle' : 'nodes.enableTitle', { node: n.name }),
      body: t(n.enabled ? 'nodes.disableBody' : 'nodes.enableBody'),
      confirmLabel: n.enabled ? t('actions.disable') : t('actions.enable'),
      cancelLabel: t('common.cancel'),
      danger: n.enabled,
      onConfirm: () => updateNode.mutate({ id: n.id, enabled: !n.enabled }, { onSuccess: () => snackbar(t('done.saved'), { kind: 'success' }) }),
    });
  const newToken = (n: StaffNode) =>
    openConfirm({
      title: t('nodes.newTokenTitle', { node: n.name }),
      body: t('nodes.newTokenBody'),
      confirmLabel: t('nodes.newToken'),
      cancelLabel: t('common.cancel'),
      danger: true,
      onConfirm: () => issue.mutate({ id: n.id }, { onSuccess: (res) => onToken({ node: n.name, token: res.token }) }),
    });
  const headingId = `location-${l.id}`;
  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby={headingId} data-testid={`location-${l.slug}`}>
      <Group justify="space-between" gap="sm" mb="sm">
        <div>
          <Title order={2} fz={18} id={headingId}>
            {l.city}, {l.country}
          </Title>
          <Text size="xs" c="dimmed">
            {l.slug}
          </Text>
        </div>
        <Group gap="md">
          <Switch label={t('nodes.premium')} checked={l.premium} onChange={() => flip('premium')} disabled={update.isPending} />
          <Switch label={t('nodes.visible')} checked={l.visible} onChange={() => flip('visible')} disabled={update.isPending} />
          <Button size="compact-sm" variant="light" onClick={onAddNode} aria-label={`${t('nodes.addNode')}: ${l.slug}`}>
            {t('nodes.addNode')}
          </Button>
        </Group>
      </Group>
      {l.nodes.length === 0 ? (
        <EmptyState message={t('nodes.noNodes')} />
      ) : (
        <StaffTable
          label={t('nodes.nodesOf', { location: l.slug })}
          minWidth={900}
          head={[t('nodes.colNode'), t('nodes.colStatus'), t('nodes.colLastReport'), t('nodes.colPeers'), t('nodes.colLoad'), t('nodes.colAgent'), t('nodes.colError'), t('nodes.colActions')]}
        >
          {l.nodes.map((n) => {
            const health = nodeHealth(n.lastReportAt);
            return (
              <Table.Tr key={n.id} data-testid={`node-${n.name}`}>
                <Table.Td>
                  <Text size="sm" fw={600}>
                    {n.name}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {n.host}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Group gap={4} wrap="nowrap">
                    <Badge color={HEALTH_COLOR[health]} variant="light" radius="sm">
                      {t(`nodes.health.${health}`)}
                    </Badge>
                    {!n.enabled && (
                      <Badge color="gray" variant="outline" radius="sm">
                        {t('nodes.off')}
                      </Badge>
                    )}
                  </Group>
                </Table.Td>
                <Table.Td title={formatWhen(n.lastReportAt, i18n.language)}>{n.lastReportAt ? formatAgo(n.lastReportAt, i18n.language) : t('customer.never')}</Table.Td>
                <Table.Td>{n.activePeers ?? '—'}</Table.Td>
                <Table.Td>{n.load === null ? '—' : `${Math.round(n.load)}%`}</Table.Td>
                <Table.Td>{n.agentVersion ?? '—'}</Table.Td>
                <Table.Td style={{ maxWidth: 220 }}>
                  {n.lastApplyError ? (
                    <Text size="xs" c="red" style={{ overflowWrap: 'anywhere' }}>
                      {n.lastApplyError}
                    </Text>
                  ) : (
                    '—'
                  )}
                </Table.Td>
                <Table.Td>
                  <Group gap={4} wrap="nowrap">
                    <Button size="compact-xs" variant="light" color={n.enabled ? 'red' : undefined} onClick={() => flipNode(n)} aria-label={`${n.enabled ? t('actions.disable') : t('actions.enable')}: ${n.name}`}>
                      {n.enabled ? t('actions.disable') : t('actions.enable')}
                    </Button>
                    <Button size="compact-xs" variant="light" color="orange" loading={issue.isPending && issue.variables?.id === n.id} onClick={() => newToken(n)} aria-label={`${t('nodes.newToken')}: ${n.name}`}>
                      {t('nodes.newToken')}
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </StaffTable>
      )}
    </Card>
  );
}
