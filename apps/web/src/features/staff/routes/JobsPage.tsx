import { Badge, Button, Card, Code, Stack, Table, Text, Title } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import '@mantine/core/styles/Code.layer.css';
import '@mantine/core/styles/Table.layer.css';
import { useTranslation } from 'react-i18next';
import type { StaffJob } from '@warren/contract';
import { EmptyState, QueryState } from '../../../components/QueryState';
import { openConfirm } from '../../../lib/confirm';
import { snackbar } from '../../../lib/notify';
import { useJobs } from '../api/get-jobs';
import { useRetryJob } from '../api/retry-job';
import { StaffTable } from '../components/StaffTable';
import { STAFF_NS } from '../lib/i18n';
import { formatWhen } from '../lib/format';
import { can } from '../lib/permissions';
import { useStaffMe } from './StaffConsole';

/** What a job's payload or output says, short: JSON on one line, cut. */
function brief(value: unknown, max = 160): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** /staff/jobs: background jobs (renewals, mails) that failed, and those due, running or waiting to retry; admins retry failed ones. */
export function JobsPage() {
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
            <JobTable
              id="jobs-failed"
              title={t('jobs.failed')}
              empty={t('jobs.noFailed')}
              jobs={list.filter((j) => j.state === 'failed')}
            />
            <JobTable
              id="jobs-due"
              title={t('jobs.due')}
              empty={t('jobs.noDue')}
              jobs={list.filter((j) => j.state !== 'failed')}
            />
          </>
        )}
      </QueryState>
    </Stack>
  );
}

function JobTable({ id, title, empty, jobs }: { id: string; title: string; empty: string; jobs: StaffJob[] }) {
  const { t, i18n } = useTranslation(STAFF_NS);
  const me = useStaffMe();
  const admin = can(me.role, 'retryJobs');
  const retry = useRetryJob();
  const ask = (j: StaffJob) =>
    openConfirm({
      title: t('jobs.retryTitle', { kind: j.queue }),
      body: t('jobs.retryBody'),
      confirmLabel: t('jobs.retry'),
      cancelLabel: t('common.cancel'),
      onConfirm: () =>
        retry.mutate({ queue: j.queue, id: j.id }, { onSuccess: () => snackbar(t('done.retry'), { kind: 'success' }) }),
    });
  const showActions = admin && jobs.some((j) => j.state === 'failed');
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
        <StaffTable
          label={title}
          minWidth={760}
          head={[
            t('jobs.colKind'),
            t('jobs.colState'),
            t('jobs.colRunAt'),
            t('jobs.colAttempts'),
            t('jobs.colData'),
            t('jobs.colOutput'),
            ...(showActions ? [t('jobs.colActions')] : []),
          ]}
        >
          {jobs.map((j) => (
            <Table.Tr key={`${j.queue}/${j.id}`}>
              <Table.Td>{j.queue}</Table.Td>
              <Table.Td>{t(`jobs.states.${j.state}`, { defaultValue: j.state })}</Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatWhen(j.startAfter, i18n.language)}</Table.Td>
              <Table.Td>{j.retryCount}</Table.Td>
              <Table.Td style={{ maxWidth: 220 }}>
                <Code style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{brief(j.data) || '—'}</Code>
              </Table.Td>
              <Table.Td style={{ maxWidth: 260 }}>
                <Text size="xs" c={j.state === 'failed' ? 'red' : 'dimmed'} style={{ overflowWrap: 'anywhere' }}>
                  {brief(j.output) || '—'}
                </Text>
              </Table.Td>
              {showActions && (
                <Table.Td>
                  {j.state === 'failed' && (
                    <Button
                      size="compact-xs"
                      variant="light"
                      loading={retry.isPending && retry.variables?.id === j.id}
                      onClick={() => ask(j)}
                      aria-label={`${t('jobs.retry')}: ${j.queue} ${j.id}`}
                    >
                      {t('jobs.retry')}
                    </Button>
                  )}
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </StaffTable>
      )}
    </Card>
  );
}
