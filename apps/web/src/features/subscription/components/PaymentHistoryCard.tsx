import { Badge, Button, Card, Group, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import '@mantine/core/styles/Table.layer.css';
import { useMediaQuery } from '@mantine/hooks';
import type { PaymentHistoryItem } from '@warren/contract';
import { useTranslation } from 'react-i18next';
import { EmptyState, QueryState } from '../../../components/QueryState';
import { IconDownload } from '../../../components/icons';
import { openConfirm } from '../../../lib/confirm';
import { errorBodyOf, errorText } from '../../../lib/http-error';
import { snackbar } from '../../../lib/notify';
import { planDisplayName } from '../../../lib/plan';
import { useDownloadReceipt } from '../api/download-receipt';
import { usePayments } from '../api/get-payments';
import { useRequestRefund } from '../api/request-refund';
import { formatDate, formatMoney, providerName } from '../lib/format';

const KIND_KEY = {
  purchase: 'subscription.kindPurchase',
  renewal: 'subscription.kindRenewal',
  switch: 'subscription.kindSwitch',
  grant: 'subscription.kindGrant',
  refund: 'subscription.kindRefund',
} as const;
const STATUS_KEY = {
  pending: 'subscription.stPending',
  succeeded: 'subscription.stSucceeded',
  failed: 'subscription.stFailed',
  refunded: 'subscription.stRefunded',
  expired: 'subscription.stExpired',
} as const;
const STATUS_COLOR = {
  pending: 'yellow',
  succeeded: 'teal',
  failed: 'red',
  refunded: 'gray',
  expired: 'gray',
} as const;

/** Every payment, renewal, failed attempt and refund; a receipt per paid one; a refund inside the window. Cards on a phone. */
export function PaymentHistoryCard() {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const payments = usePayments();
  const receipt = useDownloadReceipt();
  const refund = useRequestRefund();
  const phone = useMediaQuery('(max-width: 48em)') ?? false;

  const date = (iso: string) => formatDate(iso, lang);
  const money = (p: PaymentHistoryItem) =>
    `${p.kind === 'refund' ? '−' : ''}${formatMoney(p.amountMinor, p.currency, lang)}`;
  const item = (p: PaymentHistoryItem) => `${t(KIND_KEY[p.kind])}: ${planDisplayName(t, p.tariffKey, p.tariffName)}`;
  const period = (p: PaymentHistoryItem) =>
    p.periodStart === null
      ? null
      : p.periodEnd === null
        ? t('subscription.periodLifetime')
        : t('subscription.period', { from: date(p.periodStart), to: date(p.periodEnd) });

  const download = (p: PaymentHistoryItem) =>
    receipt.mutate(
      { paymentId: p.paymentId, language: lang },
      { onError: (err) => snackbar(errorText(errorBodyOf(err), t('subscription.receiptFailed')), { kind: 'error' }) },
    );
  const askRefund = (p: PaymentHistoryItem) =>
    openConfirm({
      title: t('subscription.refundTitle'),
      body: t('subscription.refundBody', {
        amount: formatMoney(p.amountMinor, p.currency, lang),
        period: period(p) ?? '—',
      }),
      confirmLabel: t('subscription.refundConfirm', { amount: formatMoney(p.amountMinor, p.currency, lang) }),
      cancelLabel: t('subscription.cancel'),
      danger: true,
      confirmTestId: 'confirm-refund',
      onConfirm: () =>
        refund.mutate(p.paymentId, {
          onSuccess: ({ outcome }) =>
            snackbar(
              t(outcome === 'requested' ? 'subscription.refundRequestedDone' : 'subscription.refundDone', {
                amount: formatMoney(p.amountMinor, p.currency, lang),
              }),
              { kind: 'success' },
            ),
          onError: (err) => snackbar(errorText(errorBodyOf(err), t('subscription.refundFailed')), { kind: 'error' }),
        }),
    });

  const status = (p: PaymentHistoryItem) => (
    // Its whole word, never "PA…": a table cell shrinks to its content's smallest width, and a badge's label allows an ellipsis.
    <Badge color={STATUS_COLOR[p.status]} variant="light" radius="sm" miw="max-content" data-testid="history-status">
      {t(STATUS_KEY[p.status])}
    </Badge>
  );
  const actions = (p: PaymentHistoryItem) => (
    <Group gap="xs" wrap="wrap">
      {p.receiptAvailable && (
        <Button
          variant="subtle"
          size="compact-sm"
          leftSection={<IconDownload size={16} />}
          loading={receipt.isPending && receipt.variables?.paymentId === p.paymentId}
          onClick={() => download(p)}
          aria-label={t('subscription.receiptFor', { item: item(p), date: date(p.date) })}
          data-testid="download-receipt"
        >
          {t('subscription.receipt')}
        </Button>
      )}
      {p.refundAvailable && (
        <Button
          variant="subtle"
          color="red"
          size="compact-sm"
          loading={refund.isPending && refund.variables === p.paymentId}
          onClick={() => askRefund(p)}
          aria-label={t('subscription.refundFor', { item: item(p), date: date(p.date) })}
          data-testid="ask-refund"
        >
          {t('subscription.refund')}
        </Button>
      )}
      {p.refundRequested && (
        <Badge color="orange" variant="light" radius="sm" data-testid="refund-requested">
          {t('subscription.refundRequested')}
        </Badge>
      )}
    </Group>
  );
  const details = (p: PaymentHistoryItem) => (
    <>
      {period(p) && (
        <Text size="xs" c="dimmed">
          {period(p)}
        </Text>
      )}
      {p.status === 'expired' && (
        <Text size="xs" c="dimmed" data-testid="expired-note">
          {t('subscription.expiredNote')}
        </Text>
      )}
      {p.failureReason && (
        <Text size="xs" c="red">
          {t('subscription.failureReason', { reason: p.failureReason })}
        </Text>
      )}
      {p.refundRequested && (
        <Text size="xs" c="dimmed">
          {t('subscription.refundRequestedNote')}
        </Text>
      )}
      {p.refundAvailable && p.refundableUntil && (
        <Text size="xs" c="dimmed">
          {t('subscription.refundUntil', { date: date(p.refundableUntil) })}
        </Text>
      )}
    </>
  );

  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="subscription-history">
      <Title order={2} fz={18} id="subscription-history" mb={4}>
        {t('subscription.history')}
      </Title>
      {payments.data && (
        <Text size="sm" c="dimmed" mb="md">
          {t('subscription.refundWindow', { days: payments.data.moneyBackDays })}
        </Text>
      )}
      <QueryState query={payments} loading={t('subscription.historyLoading')} error={t('subscription.historyFailed')}>
        {({ items }) =>
          items.length === 0 ? (
            <EmptyState message={t('subscription.historyEmpty')} testId="history-empty" />
          ) : phone ? (
            <Stack gap="sm" data-testid="history-cards">
              {items.map((p) => (
                <Card key={p.id} withBorder padding="md" radius="md" data-testid="history-row">
                  <Group justify="space-between" wrap="nowrap" align="flex-start" gap="sm">
                    <div style={{ minWidth: 0 }}>
                      <Text fw={600}>{item(p)}</Text>
                      <Text size="sm" c="dimmed">
                        {date(p.date)} · {providerName(p.provider)}
                      </Text>
                      {details(p)}
                    </div>
                    <Stack gap={4} align="flex-end" style={{ flexShrink: 0 }}>
                      <Text fw={700} style={{ whiteSpace: 'nowrap' }}>
                        {money(p)}
                      </Text>
                      {status(p)}
                    </Stack>
                  </Group>
                  {(p.receiptAvailable || p.refundAvailable || p.refundRequested) && (
                    <div style={{ marginTop: 8 }}>{actions(p)}</div>
                  )}
                </Card>
              ))}
            </Stack>
          ) : (
            <Table.ScrollContainer minWidth={640}>
              <Table verticalSpacing="sm" data-testid="history-table">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t('subscription.colDate')}</Table.Th>
                    <Table.Th>{t('subscription.colItem')}</Table.Th>
                    <Table.Th style={{ textAlign: 'right' }}>{t('subscription.colAmount')}</Table.Th>
                    <Table.Th>{t('subscription.colMethod')}</Table.Th>
                    <Table.Th>{t('subscription.colStatus')}</Table.Th>
                    <Table.Th>
                      <VisuallyHidden>{t('subscription.colActions')}</VisuallyHidden>
                    </Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {items.map((p) => (
                    <Table.Tr key={p.id} data-testid="history-row">
                      <Table.Td style={{ whiteSpace: 'nowrap' }}>{date(p.date)}</Table.Td>
                      <Table.Td>
                        <Text size="sm" fw={600}>
                          {item(p)}
                        </Text>
                        {details(p)}
                      </Table.Td>
                      <Table.Td style={{ textAlign: 'right', whiteSpace: 'nowrap' }}>{money(p)}</Table.Td>
                      <Table.Td>{providerName(p.provider)}</Table.Td>
                      <Table.Td>{status(p)}</Table.Td>
                      <Table.Td>{actions(p)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )
        }
      </QueryState>
    </Card>
  );
}
