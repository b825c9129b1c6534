import { useState, type ReactNode } from 'react';
import { Anchor, Badge, Button, Card, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import '@mantine/core/styles/SimpleGrid.layer.css';
import { Link, useNavigate, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { EmptyState, QueryState } from '../../../components/QueryState';
import { openConfirm } from '../../../lib/confirm';
import { snackbar } from '../../../lib/notify';
import { useCustomer } from '../api/get-customer';
import { useDeleteCustomer } from '../api/delete-customer';
import { useGrantDays } from '../api/grant-days';
import { useRefundPayment } from '../api/refund-payment';
import { useResendVerification } from '../api/resend-verification';
import { useResetServices } from '../api/reset-services';
import { useSetDisabled } from '../api/set-disabled';
import { useSignOutAll } from '../api/sign-out-all';
import { useTurnOffAutoRenew } from '../api/turn-off-auto-renew';
import type { CustomerDetail, CustomerPayment } from '../api/types';
import { DeleteDialog, DisableDialog, GrantDaysDialog, RefundDialog } from '../components/CustomerDialogs';
import { StaffTable } from '../components/StaffTable';
import { STAFF_NS } from '../lib/i18n';
import { formatAgo, formatDay, formatWhen } from '../lib/format';
import { can } from '../lib/permissions';
import { useStaffMe } from './StaffConsole';

type Dialog = { kind: 'grant' } | { kind: 'disable' } | { kind: 'delete' } | { kind: 'refund'; payment: CustomerPayment } | null;

function money(p: CustomerPayment, language: string): string {
  const n = Number(p.amount);
  try {
    return Number.isFinite(n) ? new Intl.NumberFormat(language, { style: 'currency', currency: p.currency }).format(n) : `${p.amount} ${p.currency}`;
  } catch {
    return `${p.amount} ${p.currency}`;
  }
}

function Section({ id, title, actions, children }: { id: string; title: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <Card withBorder padding="lg" radius="lg" component="section" aria-labelledby={id}>
      <Group justify="space-between" mb="sm" gap="sm">
        <Title order={2} fz={18} id={id}>
          {title}
        </Title>
        {actions && <Group gap="xs">{actions}</Group>}
      </Group>
      {children}
    </Card>
  );
}

function Field({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed" fw={600} tt="uppercase">
        {label}
      </Text>
      <Text size="sm" data-testid={testId} style={{ overflowWrap: 'anywhere' }}>
        {children}
      </Text>
    </div>
  );
}

/** /staff/customers/:id: everything support needs about one customer, and the actions their role allows. */
export function CustomerPage() {
  const { t } = useTranslation(STAFF_NS);
  const { customerId: id = '' } = useParams();
  const customer = useCustomer(id);
  return (
    <Stack gap="lg">
      <Anchor component={Link} to="/staff/customers" size="sm">
        {t('customer.back')}
      </Anchor>
      <QueryState query={customer} loading={t('customer.loading')} error={t('customer.loadFailed')}>
        {(c) => <CustomerView customerId={id} c={c} />}
      </QueryState>
    </Stack>
  );
}

function CustomerView({ customerId, c }: { customerId: string; c: CustomerDetail }) {
  const { t, i18n } = useTranslation(STAFF_NS);
  const lang = i18n.language;
  const me = useStaffMe();
  const navigate = useNavigate();
  const [dialog, setDialog] = useState<Dialog>(null);
  const grant = useGrantDays();
  const refund = useRefundPayment();
  const resend = useResendVerification();
  const autoRenew = useTurnOffAutoRenew();
  const signOutAll = useSignOutAll();
  const reset = useResetServices();
  const disable = useSetDisabled();
  const del = useDeleteCustomer();
  const a = c.account;
  const s = c.subscription;
  const done = (message: string) => snackbar(message, { kind: 'success' });
  const close = () => {
    setDialog(null);
    for (const m of [grant, refund, disable, del]) m.reset();
  };
  const confirm = (key: string, run: () => void, danger = false) =>
    openConfirm({
      title: t(`confirm.${key}Title`),
      body: t(`confirm.${key}Body`, { email: a.email }),
      confirmLabel: t(`actions.${key}`),
      cancelLabel: t('common.cancel'),
      danger,
      confirmTestId: `confirm-${key}`,
      onConfirm: run,
    });

  return (
    <>
      <Group justify="space-between" align="flex-start" gap="sm">
        <div style={{ minWidth: 0 }}>
          <Title order={1} fz={24} style={{ overflowWrap: 'anywhere' }} data-testid="customer-email">
            {a.email}
          </Title>
          <Group gap={6} mt={4}>
            <Text size="sm" c="dimmed">
              {t('customer.id', { id: a.id })}
            </Text>
            {a.disabled && (
              <Badge color="red" variant="light" radius="sm">
                {t('customer.disabled')}
              </Badge>
            )}
            <Badge color={a.verified ? 'teal' : 'gray'} variant="light" radius="sm">
              {a.verified ? t('customer.verified') : t('customer.notVerified')}
            </Badge>
          </Group>
        </div>
        <Anchor component={Link} to={`/staff/audit?customer=${a.id}`} size="sm">
          {t('customer.auditLink')}
        </Anchor>
      </Group>

      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <Section
          id="customer-account"
          title={t('customer.account')}
          actions={
            <>
              {!a.verified && can(me.role, 'resendVerification') && (
                <Button size="compact-sm" variant="light" loading={resend.isPending} onClick={() => confirm('resendVerification', () => resend.mutate({ customerId }, { onSuccess: () => done(t('done.resendVerification')) }))}>
                  {t('actions.resendVerification')}
                </Button>
              )}
              {can(me.role, 'disable') && (
                <Button size="compact-sm" variant="light" color={a.disabled ? undefined : 'red'} onClick={() => setDialog({ kind: 'disable' })}>
                  {a.disabled ? t('actions.enable') : t('actions.disable')}
                </Button>
              )}
              {can(me.role, 'delete') && (
                <Button size="compact-sm" variant="light" color="red" onClick={() => setDialog({ kind: 'delete' })}>
                  {t('actions.delete')}
                </Button>
              )}
            </>
          }
        >
          <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
            <Field label={t('customer.name')}>{a.name || '—'}</Field>
            <Field label={t('customer.created')}>{formatWhen(a.createdAt, lang)}</Field>
            <Field label={t('customer.language')}>{a.language}</Field>
            <Field label={t('customer.twoFactor')}>{a.twoFactor ? t('common.on') : t('common.off')}</Field>
          </SimpleGrid>
        </Section>

        <Section
          id="customer-plan"
          title={t('customer.plan')}
          actions={
            <>
              {can(me.role, 'grantDays') && (
                <Button size="compact-sm" variant="light" onClick={() => setDialog({ kind: 'grant' })} data-testid="grant-days">
                  {t('actions.grantDays')}
                </Button>
              )}
              {s.autoRenew && can(me.role, 'autoRenewOff') && (
                <Button size="compact-sm" variant="light" color="orange" loading={autoRenew.isPending} onClick={() => confirm('autoRenewOff', () => autoRenew.mutate({ customerId }, { onSuccess: () => done(t('done.autoRenewOff')) }))}>
                  {t('actions.autoRenewOff')}
                </Button>
              )}
            </>
          }
        >
          <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
            <Field label={t('customer.planName')}>{s.plan ?? t('customers.noPlan')}</Field>
            <Field label={t('customer.status')}>{s.status}</Field>
            <Field label={t('customer.expires')} testId="customer-expires">
              {formatWhen(s.expiresAt, lang)}
            </Field>
            <Field label={t('customer.autoRenew')}>{s.autoRenew ? t('common.on') : t('common.off')}</Field>
          </SimpleGrid>
        </Section>
      </SimpleGrid>

      <Section id="customer-payments" title={t('customer.payments')}>
        {c.payments.length === 0 ? (
          <EmptyState message={t('customer.noPayments')} />
        ) : (
          <StaffTable label={t('customer.payments')} minWidth={720} head={[t('customer.colDate'), t('customer.colPlan'), t('customer.colAmount'), t('customer.colProvider'), t('customer.colStatus'), t('customer.colActions')]} testId="payments-table">
            {c.payments.map((p) => (
              <Table.Tr key={p.id}>
                <Table.Td>{formatWhen(p.createdAt, lang)}</Table.Td>
                <Table.Td>{p.plan ?? '—'}</Table.Td>
                <Table.Td style={{ fontVariantNumeric: 'tabular-nums' }}>{money(p, lang)}</Table.Td>
                <Table.Td>{p.provider}</Table.Td>
                <Table.Td>
                  {p.refundedAt ? (
                    <Badge color="orange" variant="light" radius="sm">
                      {t('customer.refundedOn', { date: formatDay(p.refundedAt, lang) })}
                    </Badge>
                  ) : (
                    p.status
                  )}
                </Table.Td>
                <Table.Td>
                  {can(me.role, 'refund') && p.refundable && !p.refundedAt && (
                    <Button size="compact-xs" variant="light" color="red" onClick={() => setDialog({ kind: 'refund', payment: p })} aria-label={`${t('actions.refund')}: ${money(p, lang)}, ${formatDay(p.createdAt, lang)}`}>
                      {t('actions.refund')}
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </StaffTable>
        )}
      </Section>

      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <Section id="customer-devices" title={t('customer.devices')}>
          {c.devices.length === 0 ? (
            <EmptyState message={t('customer.noDevices')} />
          ) : (
            <StaffTable label={t('customer.devices')} minWidth={420} head={[t('customer.colDevice'), t('customer.colLocation'), t('customer.colHandshake')]}>
              {c.devices.map((d) => (
                <Table.Tr key={d.id}>
                  <Table.Td>{d.name}</Table.Td>
                  <Table.Td>{d.location ?? '—'}</Table.Td>
                  <Table.Td title={formatWhen(d.lastHandshakeAt, lang)}>{d.lastHandshakeAt ? formatAgo(d.lastHandshakeAt, lang) : t('customer.never')}</Table.Td>
                </Table.Tr>
              ))}
            </StaffTable>
          )}
        </Section>

        <Section
          id="customer-services"
          title={t('customer.services')}
          actions={
            can(me.role, 'resetServices') && (
              <Button size="compact-sm" variant="light" color="orange" loading={reset.isPending} onClick={() => confirm('resetServices', () => reset.mutate({ customerId }, { onSuccess: () => done(t('done.resetServices')) }), true)}>
                {t('actions.resetServices')}
              </Button>
            )
          }
        >
          <Group gap="sm">
            {(['openvpn', 'socks5'] as const).map((k) => (
              <Badge key={k} color={c.services[k] ? 'teal' : 'gray'} variant="light" radius="sm" size="lg">
                {t(`customer.${k}`)}: {c.services[k] ? t('customer.present') : t('customer.absent')}
              </Badge>
            ))}
          </Group>
        </Section>
      </SimpleGrid>

      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <Section
          id="customer-sessions"
          title={t('customer.sessions', { count: c.sessions.length })}
          actions={
            can(me.role, 'signOutAll') && (
              <Button size="compact-sm" variant="light" color="red" disabled={c.sessions.length === 0} loading={signOutAll.isPending} onClick={() => confirm('signOutAll', () => signOutAll.mutate({ customerId }, { onSuccess: () => done(t('done.signOutAll')) }), true)}>
                {t('actions.signOutAll')}
              </Button>
            )
          }
        >
          {c.sessions.length === 0 ? (
            <EmptyState message={t('customer.noSessions')} />
          ) : (
            <StaffTable label={t('customer.sessions', { count: c.sessions.length })} minWidth={420} head={[t('customer.colSignedIn'), t('customer.colLastUsed'), t('customer.colAgent')]}>
              {c.sessions.map((x) => (
                <Table.Tr key={x.id}>
                  <Table.Td>{formatWhen(x.createdAt, lang)}</Table.Td>
                  <Table.Td>{formatAgo(x.lastUsedAt, lang)}</Table.Td>
                  <Table.Td style={{ maxWidth: 240, overflowWrap: 'anywhere' }}>{x.userAgent ?? '—'}</Table.Td>
                </Table.Tr>
              ))}
            </StaffTable>
          )}
        </Section>

        <Section id="customer-mails" title={t('customer.mails')}>
          {c.mails.length === 0 ? (
            <EmptyState message={t('customer.noMails')} />
          ) : (
            <StaffTable label={t('customer.mails')} minWidth={420} head={[t('customer.colSent'), t('customer.colSubject')]}>
              {c.mails.map((m) => (
                <Table.Tr key={m.id}>
                  <Table.Td>{formatWhen(m.sentAt, lang)}</Table.Td>
                  <Table.Td>{m.subject}</Table.Td>
                </Table.Tr>
              ))}
            </StaffTable>
          )}
        </Section>
      </SimpleGrid>

      {dialog?.kind === 'grant' && (
        <GrantDaysDialog
          opened
          onClose={close}
          pending={grant.isPending}
          error={grant.error}
          onSubmit={(v) =>
            grant.mutate(
              { customerId, ...v },
              {
                onSuccess: () => {
                  close();
                  done(t('done.grantDays', { count: v.days }));
                },
              },
            )
          }
        />
      )}
      {dialog?.kind === 'refund' && (
        <RefundDialog
          opened
          onClose={close}
          payment={dialog.payment}
          amount={money(dialog.payment, lang)}
          pending={refund.isPending}
          error={refund.error}
          onSubmit={(v) =>
            refund.mutate(
              { customerId, paymentId: dialog.payment.id, ...v },
              {
                onSuccess: () => {
                  close();
                  done(t('done.refund'));
                },
              },
            )
          }
        />
      )}
      {dialog?.kind === 'disable' && (
        <DisableDialog
          opened
          onClose={close}
          disabled={a.disabled}
          pending={disable.isPending}
          error={disable.error}
          onSubmit={(v) =>
            disable.mutate(
              { customerId, disabled: !a.disabled, ...v },
              {
                onSuccess: () => {
                  close();
                  done(a.disabled ? t('done.enable') : t('done.disable'));
                },
              },
            )
          }
        />
      )}
      {dialog?.kind === 'delete' && (
        <DeleteDialog
          opened
          onClose={close}
          email={a.email}
          pending={del.isPending}
          error={del.error}
          onSubmit={(v) =>
            del.mutate(
              { customerId, ...v },
              {
                onSuccess: () => {
                  setDialog(null);
                  done(t('done.delete', { email: a.email }));
                  navigate('/staff/customers', { replace: true });
                },
              },
            )
          }
        />
      )}
    </>
  );
}
