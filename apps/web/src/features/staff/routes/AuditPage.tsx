import { useState, type FormEvent } from 'react';
import { Anchor, Button, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import '@mantine/core/styles/Table.layer.css';
import { useTranslation } from 'react-i18next';
import type { StaffAuditEntry } from '@warren/contract';
import { EmptyState, ErrorState, LoadingState, QueryState } from '../../../components/QueryState';
import { useAudit } from '../api/get-audit';
import { customerSearchQuery } from '../api/search-customers';
import { StaffTable } from '../components/StaffTable';
import { STAFF_NS } from '../lib/i18n';
import { TARGET_MARK, auditWords } from '../lib/audit-words';
import { formatWhen } from '../lib/format';
import classes from './staff.module.css';

const ID = /^\d{1,10}$/;

/**
 * The customer to filter by: an id as it is, an email through the customer search (exact match).
 * undefined while that search runs; null for "everyone".
 */
function useCustomerFilter(customer: string): {
  id: number | null | undefined;
  unknown: boolean;
  failed: boolean;
  retry: () => void;
} {
  const byEmail = !!customer && !ID.test(customer);
  const search = useQuery({ ...customerSearchQuery(customer), enabled: byEmail });
  if (!customer) return { id: null, unknown: false, failed: false, retry: () => {} };
  if (!byEmail) return { id: Number(customer), unknown: false, failed: false, retry: () => {} };
  const match = search.data?.find((c) => c.email.toLowerCase() === customer.toLowerCase());
  return {
    id: match ? match.id : search.data ? null : undefined,
    unknown: !!search.data && !match,
    failed: search.isError,
    retry: () => void search.refetch(),
  };
}

/** /staff/audit?customer=: every staff action, newest first (who, what, whom, when, from where); no one can edit it. */
export function AuditPage() {
  const { t } = useTranslation(STAFF_NS);
  const [params, setParams] = useSearchParams();
  const customer = (params.get('customer') ?? '').trim();
  const [text, setText] = useState(customer);
  const filter = useCustomerFilter(customer);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next = text.trim();
    setParams(next ? { customer: next } : {});
  };
  return (
    <Stack gap="lg">
      <Title order={1} fz={24}>
        {t('audit.title')}
      </Title>
      <form onSubmit={submit} role="search" aria-label={t('audit.filter')}>
        <Group align="flex-end" gap="sm" wrap="nowrap">
          <TextInput
            label={t('audit.customer')}
            placeholder={t('customers.placeholder')}
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
            flex={1}
            miw={0}
            maxLength={254}
            data-testid="audit-customer"
          />
          <Button type="submit">{t('audit.apply')}</Button>
          {customer && (
            <Button
              variant="default"
              onClick={() => {
                setText('');
                setParams({});
              }}
            >
              {t('audit.clear')}
            </Button>
          )}
        </Group>
      </form>
      {filter.failed ? (
        <ErrorState message={t('customers.loadFailed')} onRetry={filter.retry} />
      ) : filter.unknown ? (
        <EmptyState message={t('customers.none', { q: customer })} />
      ) : filter.id === undefined ? (
        <LoadingState label={t('audit.loading')} />
      ) : (
        <AuditList customerId={filter.id} label={customer} />
      )}
    </Stack>
  );
}

function AuditList({ customerId, label }: { customerId: number | null; label: string }) {
  const { t, i18n } = useTranslation(STAFF_NS);
  const audit = useAudit(customerId);
  return (
    <QueryState query={audit} loading={t('audit.loading')} error={t('audit.loadFailed')}>
      {(data) => {
        const list = data.pages.flatMap((p) => p.items);
        if (list.length === 0)
          return <EmptyState message={customerId ? t('audit.noneFor', { customer: label }) : t('audit.none')} />;
        return (
          <Stack gap="sm">
            <StaffTable
              label={t('audit.title')}
              minWidth={0}
              stacked
              head={[t('audit.colWhen'), t('audit.colWho'), t('audit.colWhat'), t('audit.colFrom')]}
              testId="audit-table"
            >
              {list.map((e) => (
                <Table.Tr key={e.id} data-testid={`audit-${e.action}`}>
                  <Table.Td data-label={t('audit.colWhen')} style={{ whiteSpace: 'nowrap' }}>
                    {formatWhen(e.at, i18n.language)}
                  </Table.Td>
                  <Table.Td data-label={t('audit.colWho')} style={{ overflowWrap: 'anywhere' }}>
                    <Text size="sm">{e.actor}</Text>
                    {e.role && (
                      <Text size="xs" c="dimmed">
                        {t(`roles.${e.role}`, { defaultValue: e.role })}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td data-label={t('audit.colWhat')} className={classes.auditWhat}>
                    <AuditSentence entry={e} />
                  </Table.Td>
                  <Table.Td data-label={t('audit.colFrom')}>
                    <Text size="xs" title={e.userAgent}>
                      {e.ip || '—'}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </StaffTable>
            {audit.hasNextPage && (
              <Group justify="center">
                <Button variant="default" loading={audit.isFetchingNextPage} onClick={() => void audit.fetchNextPage()}>
                  {t('audit.more')}
                </Button>
              </Group>
            )}
          </Stack>
        );
      }}
    </QueryState>
  );
}

/** The entry as a sentence ("Granted 30 days to ann@example.com, paid until …"), its customer a link to their page, its reason below. */
function AuditSentence({ entry: e }: { entry: StaffAuditEntry }) {
  const { t, i18n } = useTranslation(STAFF_NS);
  const words = auditWords(e, i18n.language);
  const lists = Object.fromEntries(
    Object.entries(words.lists ?? {}).map(([name, keys]) => [name, keys.map((k) => t(k)).join(', ')]),
  );
  // The target's place is marked: the sentence is split there and the link (or the name) put in.
  const [before, after] = t(words.key, { ...words.values, ...lists, interpolation: { escapeValue: false } }).split(
    TARGET_MARK,
  );
  const target = e.targetUserId ? (
    <Anchor component={Link} to={`/staff/customers/${e.targetUserId}`}>
      {e.target || `#${e.targetUserId}`}
    </Anchor>
  ) : (
    <Text span fw={600} fz="inherit">
      {e.target || '—'}
    </Text>
  );
  return (
    <>
      <Text size="sm">
        {before}
        {after !== undefined && (
          <>
            {target}
            {after}
          </>
        )}
      </Text>
      {words.reason && (
        <Text size="xs" c="dimmed">
          {t('audit.reason', { reason: words.reason, interpolation: { escapeValue: false } })}
        </Text>
      )}
    </>
  );
}
