import { useState, type FormEvent } from 'react';
import { Anchor, Button, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { EmptyState, QueryState } from '../../../components/QueryState';
import { useAudit } from '../api/get-audit';
import type { AuditEntry } from '../api/types';
import { StaffTable } from '../components/StaffTable';
import { STAFF_NS } from '../lib/i18n';
import { formatWhen } from '../lib/format';

/** The entry's details as short `key: value` text (reason, days, payment...). */
function details(d: AuditEntry['details']): string {
  if (!d) return '';
  return Object.entries(d)
    .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(' · ');
}

/** /staff/audit?customer=: every staff action, newest first (who, what, whom, when, from where); it cannot be edited. */
export function AuditPage() {
  const { t, i18n } = useTranslation(STAFF_NS);
  const [params, setParams] = useSearchParams();
  const customer = params.get('customer') ?? '';
  const [text, setText] = useState(customer);
  const audit = useAudit(customer);
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
          <TextInput label={t('audit.customer')} placeholder={t('customers.placeholder')} value={text} onChange={(e) => setText(e.currentTarget.value)} flex={1} miw={0} maxLength={254} data-testid="audit-customer" />
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
      <QueryState query={audit} loading={t('audit.loading')} error={t('audit.loadFailed')}>
        {(list) =>
          list.length === 0 ? (
            <EmptyState message={customer ? t('audit.noneFor', { customer }) : t('audit.none')} />
          ) : (
            <StaffTable label={t('audit.title')} minWidth={860} head={[t('audit.colWhen'), t('audit.colWho'), t('audit.colAction'), t('audit.colCustomer'), t('audit.colDetails'), t('audit.colFrom')]} testId="audit-table">
              {list.map((e) => (
                <Table.Tr key={e.id}>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatWhen(e.at, i18n.language)}</Table.Td>
                  <Table.Td>{e.staffEmail}</Table.Td>
                  <Table.Td>
                    <Text size="sm" fw={600}>
                      {t(`audit.actions.${e.action}`, { defaultValue: e.action })}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    {e.customerId ? (
                      <Anchor component={Link} to={`/staff/customers/${e.customerId}`}>
                        {e.customerEmail ?? e.customerId}
                      </Anchor>
                    ) : (
                      '—'
                    )}
                  </Table.Td>
                  <Table.Td style={{ maxWidth: 280 }}>
                    <Text size="xs" style={{ overflowWrap: 'anywhere' }}>
                      {details(e.details) || '—'}
                    </Text>
                  </Table.Td>
                  <Table.Td>{e.ip ?? '—'}</Table.Td>
                </Table.Tr>
              ))}
            </StaffTable>
          )
        }
      </QueryState>
    </Stack>
  );
}
