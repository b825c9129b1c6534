import { Anchor, Badge, Button, Card, Stack, Table, Text, Title } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { EmptyState, QueryState } from '../../../components/QueryState';
import { openConfirm } from '../../../lib/confirm';
import { snackbar } from '../../../lib/notify';
import { useJobs } from '../api/get-jobs';
import { useRetryJob } from '../api/retry-job';
import type { StaffJob } from '../api/types';
import { RoleGate } from '../components/RoleGate';
import { StaffTable } from '../components/StaffTable';
import { STAFF_NS } from '../lib/i18n';
import { formatWhen } from '../lib/format';
import { useStaffMe } from './StaffConsole';

/** /staff/jobs (admin): background jobs (renewals, mails) that are due, and those that failed, with retry. */
export function JobsPage() {
  const me = useStaffMe();
  return (
    <RoleGate role={me.role} ability="jobs">
      <Jobs />
    </RoleGate>
  );
}

function Jobs() {
  const { t } = useTranslation(STAFF_NS);
  const jobs = useJobs();
  return (
    <Stack gap="lg">
      <Title order={1} fz={24}>
        {t('jobs.title')}
      </Title>
      <QueryState query={jobs} loading={t('jobs.loading')} error={t('jobs.loadFailed')}>
        {(list) => (
          <>
            <JobTable id="jobs-failed" title={t('jobs.failed')} empty={t('jobs.noFailed')} jobs={list.filter((j) => j.status === 'failed')} />
            <JobTable id="jobs-due" title={t('jobs.due')} empty={t('jobs.noDue')} jobs={list.filter((j) => j.status !== 'failed')} />
          </>
        )}
      </QueryState>
    </Stack>
  );
}

function JobTable({ id, title, empty, jobs }: { id: string; title: string; empty: string; jobs: StaffJob[] }) {
  const { t, i18n } = useTranslation(STAFF_NS);
  const retry = useRetryJob();
  const ask = (j: StaffJob) =>
    openConfirm({
      title: t('jobs.retryTitle', { kind: j.kind }),
      body: t('jobs.retryBody'),
      confirmLabel: t('jobs.retry'),
      cancelLabel: t('common.cancel'),
      onConfirm: () => retry.mutate({ id: j.id }, { onSuccess: () => snackbar(t('done.retry'), { kind: 'success' }) }),
    });
  return (
    <Card withBorder radius="lg" padding="lg" component="section" aria-labelledby={id}>
      <Title order={2} fz={18} mb="sm" id={id}>
        {title}{' '}
        <Badge variant="light" radius="sm" color={id === 'jobs-failed' && jobs.length ? 'red' : 'gray'}>
          {jobs.length}
        </Badge>
      </Title>
      {jobs.length === 0 ? (
        <EmptyState message={empty} />
      ) : (
        <StaffTable label={title} minWidth={760} head={[t('jobs.colKind'), t('jobs.colCustomer'), t('jobs.colRunAt'), t('jobs.colAttempts'), t('jobs.colError'), t('jobs.colActions')]}>
          {jobs.map((j) => (
            <Table.Tr key={j.id}>
              <Table.Td>{j.kind}</Table.Td>
              <Table.Td>
                {j.userId ? (
                  <Anchor component={Link} to={`/staff/customers/${j.userId}`}>
                    {j.userId}
                  </Anchor>
                ) : (
                  '—'
                )}
              </Table.Td>
              <Table.Td>{formatWhen(j.runAt, i18n.language)}</Table.Td>
              <Table.Td>{j.attempts}</Table.Td>
              <Table.Td style={{ maxWidth: 260 }}>
                <Text size="xs" c={j.lastError ? 'red' : 'dimmed'} style={{ overflowWrap: 'anywhere' }}>
                  {j.lastError ?? '—'}
                </Text>
              </Table.Td>
              <Table.Td>
                {j.status === 'failed' && (
                  <Button size="compact-xs" variant="light" loading={retry.isPending && retry.variables?.id === j.id} onClick={() => ask(j)} aria-label={`${t('jobs.retry')}: ${j.kind} ${j.id}`}>
                    {t('jobs.retry')}
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </StaffTable>
      )}
    </Card>
  );
}
