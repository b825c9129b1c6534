import { useState, type FormEvent } from 'react';
import { Anchor, Badge, Button, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import { Link, useSearchParams } from 'react-router';
import '@mantine/core/styles/Table.layer.css';
import { useTranslation } from 'react-i18next';
import { EmptyState, QueryState } from '../../../components/QueryState';
import { useCustomerSearch } from '../api/search-customers';
import { StaffTable } from '../components/StaffTable';
import { STAFF_NS } from '../lib/i18n';
import { formatDay } from '../lib/format';

/** /staff/customers?q=: find a customer by email (or a part of it) or by id. */
export function CustomersPage() {
  const { t, i18n } = useTranslation(STAFF_NS);
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const [text, setText] = useState(q);
  const results = useCustomerSearch(q);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next = text.trim();
    setParams(next ? { q: next } : {});
  };
  return (
    <Stack gap="lg">
      <Title order={1} fz={24}>
        {t('customers.title')}
      </Title>
      <form onSubmit={submit} role="search" aria-label={t('customers.title')}>
        <Group align="flex-end" gap="sm" wrap="nowrap">
          <TextInput
            label={t('customers.query')}
            placeholder={t('customers.placeholder')}
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
            flex={1}
            miw={0}
            maxLength={254}
            data-testid="customer-query"
          />
          <Button type="submit">{t('customers.search')}</Button>
        </Group>
      </form>
      {q && (
        <QueryState query={results} loading={t('customers.loading')} error={t('customers.loadFailed')}>
          {(list) =>
            list.length === 0 ? (
              <EmptyState message={t('customers.none', { q })} />
            ) : (
              <StaffTable
                label={t('customers.results')}
                head={[
                  t('customers.colId'),
                  t('customers.colEmail'),
                  t('customers.colPlan'),
                  t('customers.colExpires'),
                  t('customers.colStatus'),
                ]}
                testId="customer-results"
              >
                {list.map((c) => (
                  <Table.Tr key={c.id}>
                    <Table.Td>{c.id}</Table.Td>
                    <Table.Td>
                      <Anchor component={Link} to={`/staff/customers/${c.id}`} fw={600}>
                        {c.email}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>{c.tariffName}</Table.Td>
                    <Table.Td>{formatDay(c.expiresAt, i18n.language)}</Table.Td>
                    <Table.Td>
                      <Group gap={4}>
                        {c.status !== 'Active' && (
                          <Badge color={c.status === 'Suspended' ? 'red' : 'gray'} variant="light" radius="sm">
                            {t(`customer.statuses.${c.status}`)}
                          </Badge>
                        )}
                        <Badge color={c.verified ? 'teal' : 'gray'} variant="light" radius="sm">
                          {c.verified ? t('customer.verified') : t('customer.notVerified')}
                        </Badge>
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </StaffTable>
            )
          }
        </QueryState>
      )}
      {!q && (
        <Text size="sm" c="dimmed">
          {t('customers.hint')}
        </Text>
      )}
    </Stack>
  );
}
