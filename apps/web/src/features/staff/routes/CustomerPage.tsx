import { useState, type ReactNode } from 'react';
import { Anchor, Badge, Button, Card, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import '@mantine/core/styles/SimpleGrid.layer.css';
import { Link, useNavigate, useParams } from 'react-router';
import '@mantine/core/styles/Table.layer.css';
import { useTranslation } from 'react-i18next';
import type { StaffCustomer, StaffCustomerAction, StaffCustomerAnswer, StaffPayment } from '@warren/contract';
import { EmptyState, QueryState } from '../../../components/QueryState';
import { formatMoney } from '../../../lib/billing/format';
import { snackbar } from '../../../lib/notify';
import { useCustomer } from '../api/get-customer';
import { useDeleteCustomer } from '../api/delete-customer';
import { useDisableCustomer } from '../api/disable-customer';
import { useEnableCustomer } from '../api/enable-customer';
import { useGrantDays } from '../api/grant-days';
import { useRefundPayment } from '../api/refund-payment';
import { useResendVerification } from '../api/resend-verification';
import { useResetServiceCredentials } from '../api/reset-service-credentials';
import { useSetAffiliatePortal } from '../api/set-affiliate-portal';
import { useSignOutAll } from '../api/sign-out-all';
import { useTurnOffAutoRenew } from '../api/turn-off-auto-renew';
import type { CustomerActionVars } from '../api/customer-mutation';
import type { UseMutationResult } from '@tanstack/react-query';
import { DeleteDialog, GrantDaysDialog, ReasonDialog, RefundDialog } from '../components/CustomerDialogs';
import { StaffTable } from '../components/StaffTable';
import { STAFF_NS } from '../lib/i18n';
import { formatAgo, formatWhen } from '../lib/format';
import { can } from '../lib/permissions';
import { useStaffMe } from './StaffConsole';

/** The actions whose only input is a reason; `required` where the contract requires one (access changes). */
const REASON_ACTIONS = {
  'resend-verification': { required: false, danger: false },
  'auto-renew-off': { required: false, danger: false },
  'sign-out-all': { required: true, danger: true },
  'reset-service-credentials': { required: true, danger: true },
  disable: { required: true, danger: true },
  enable: { required: true, danger: false },
  'affiliate-portal': { required: true, danger: false },
} as const;
type ReasonAction = keyof typeof REASON_ACTIONS;

type Dialog =
  | { kind: 'grant-days' }
  | { kind: 'delete' }
  | { kind: 'refund'; payment: StaffPayment }
  | { kind: ReasonAction }
  | null;

function Section({
  id,
  title,
  actions,
  children,
}: {
  id: string;
  title: string;
  actions?: ReactNode;
  children: ReactNode;
}) {
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
  const { customerId = '' } = useParams();
  const customer = useCustomer(customerId);
  return (
    <Stack gap="lg">
      <Anchor component={Link} to="/staff/customers" size="sm">
        {t('customer.back')}
      </Anchor>
      <QueryState query={customer} loading={t('customer.loading')} error={t('customer.loadFailed')}>
        {(c) => <CustomerView customerId={customerId} c={c} />}
      </QueryState>
    </Stack>
  );
}

function CustomerView({ customerId, c }: { customerId: string; c: StaffCustomer }) {
  const { t, i18n } = useTranslation(STAFF_NS);
  const lang = i18n.language;
  const me = useStaffMe();
  const navigate = useNavigate();
  const [dialog, setDialog] = useState<Dialog>(null);
  const mutations: Record<
    StaffCustomerAction,
    UseMutationResult<StaffCustomerAnswer, Error, CustomerActionVars & Record<string, unknown>>
  > = {
    'grant-days': useGrantDays() as never,
    refund: useRefundPayment() as never,
    'resend-verification': useResendVerification() as never,
    'auto-renew-off': useTurnOffAutoRenew() as never,
    'sign-out-all': useSignOutAll() as never,
    'reset-service-credentials': useResetServiceCredentials() as never,
    disable: useDisableCustomer() as never,
    enable: useEnableCustomer() as never,
    delete: useDeleteCustomer() as never,
    'affiliate-portal': useSetAffiliatePortal() as never,
  };
  const a = c.account;
  const s = c.subscription;
  // A support member may not act on a staff member's account (an admin's, a colleague's, their own): not offered.
  const allowed = (action: StaffCustomerAction) => can(me.role, action) && (me.role === 'admin' || !a.staffRole);
  const suspended = a.status === 'Suspended';
  const current = dialog ? mutations[dialog.kind] : null;
  const close = () => {
    current?.reset();
    setDialog(null);
  };
  /** Runs the open dialog's action; on success closes it and says what happened. */
  const run = (vars: Record<string, unknown>, message: string, after?: () => void) =>
    current?.mutate(
      { customerId, ...vars },
      {
        onSuccess: () => {
          close();
          snackbar(message, { kind: 'success' });
          after?.();
        },
      },
    );
  const open = (kind: ReasonAction | 'grant-days' | 'delete') => setDialog({ kind } as Dialog);
  /** The texts of an action: the affiliate portal's say which way it switches (on when off, off when on). */
  const textKey = (kind: ReasonAction) =>
    kind === 'affiliate-portal' ? `affiliate-portal-${a.affiliatePortal ? 'off' : 'on'}` : kind;
  const actionButton = (kind: ReasonAction, color?: string) =>
    allowed(kind) && (
      <Button size="compact-sm" variant="light" color={color} onClick={() => open(kind)} data-testid={`action-${kind}`}>
        {t(`actions.${textKey(kind)}`)}
      </Button>
    );

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
            <Badge
              color={a.status === 'Active' ? 'teal' : suspended ? 'red' : 'gray'}
              variant="light"
              radius="sm"
              data-testid="customer-status"
            >
              {t(`customer.statuses.${a.status}`)}
            </Badge>
            <Badge color={a.verified ? 'teal' : 'gray'} variant="light" radius="sm">
              {a.verified ? t('customer.verified') : t('customer.notVerified')}
            </Badge>
            {a.staffRole && (
              <Badge color="grape" variant="light" radius="sm">
                {t(`roles.${a.staffRole}`)}
              </Badge>
            )}
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
              {!a.verified && actionButton('resend-verification')}
              {suspended ? actionButton('enable') : actionButton('disable', 'red')}
              {allowed('delete') && (
                <Button
                  size="compact-sm"
                  variant="light"
                  color="red"
                  onClick={() => open('delete')}
                  data-testid="action-delete"
                >
                  {t('actions.delete')}
                </Button>
              )}
            </>
          }
        >
          <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
            <Field label={t('customer.created')}>{formatWhen(a.createdAt, lang)}</Field>
            <Field label={t('customer.language')}>{a.language}</Field>
            <Field label={t('customer.brand')}>{a.brand}</Field>
            <Field label={t('customer.twoFactor')}>{a.twoFactorEnabled ? t('common.on') : t('common.off')}</Field>
            <Field label={t('customer.affiliatePortal')} testId="customer-affiliate-portal">
              <Group gap="xs" component="span" wrap="wrap">
                <span>{a.affiliatePortal ? t('common.on') : t('common.off')}</span>
                {actionButton('affiliate-portal')}
              </Group>
            </Field>
          </SimpleGrid>
        </Section>

        <Section
          id="customer-plan"
          title={t('customer.plan')}
          actions={
            <>
              {allowed('grant-days') && (
                <Button
                  size="compact-sm"
                  variant="light"
                  onClick={() => open('grant-days')}
                  data-testid="action-grant-days"
                >
                  {t('actions.grant-days')}
                </Button>
              )}
              {s.autoRenew && actionButton('auto-renew-off', 'orange')}
            </>
          }
        >
          <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
            <Field label={t('customer.planName')} testId="customer-plan-name">
              {s.plan.tariffName}
            </Field>
            <Field label={t('customer.status')}>{t(`customer.subscriptionStatuses.${s.status}`)}</Field>
            <Field label={t('customer.paidUntil')} testId="customer-paid-until">
              {s.plan.lifetime ? t('customer.lifetime') : formatWhen(s.paidUntil, lang)}
            </Field>
            <Field label={t('customer.autoRenew')}>
              {s.autoRenew ? t('customer.renewsAt', { when: formatWhen(s.renewsAt, lang) }) : t('common.off')}
            </Field>
            {s.paymentMethod && <Field label={t('customer.method')}>{s.paymentMethod.label}</Field>}
            {s.lastRenewalError && <Field label={t('customer.renewalError')}>{s.lastRenewalError}</Field>}
          </SimpleGrid>
        </Section>
      </SimpleGrid>

      <Section id="customer-payments" title={t('customer.payments')}>
        {c.payments.length === 0 ? (
          <EmptyState message={t('customer.noPayments')} />
        ) : (
          <StaffTable
            label={t('customer.payments')}
            minWidth={760}
            head={[
              t('customer.colDate'),
              t('customer.colKind'),
              t('customer.colPlan'),
              t('customer.colAmount'),
              t('customer.colProvider'),
              t('customer.colStatus'),
              t('customer.colActions'),
            ]}
            testId="payments-table"
          >
            {c.payments.map((p) => {
              const amount = formatMoney(p.amountMinor, p.currency, lang);
              return (
                <Table.Tr key={p.id} data-testid={`payment-${p.id}`}>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatWhen(p.date, lang)}</Table.Td>
                  <Table.Td>{t(`customer.kinds.${p.kind}`)}</Table.Td>
                  <Table.Td>{p.tariffName || '—'}</Table.Td>
                  <Table.Td style={{ fontVariantNumeric: 'tabular-nums', whiteSpace: 'nowrap' }}>{amount}</Table.Td>
                  <Table.Td>{p.provider}</Table.Td>
                  <Table.Td>
                    <Badge
                      color={
                        p.status === 'succeeded'
                          ? 'teal'
                          : p.status === 'refunded'
                            ? 'orange'
                            : p.status === 'failed'
                              ? 'red'
                              : 'gray'
                      }
                      variant="light"
                      radius="sm"
                    >
                      {t(`customer.paymentStatuses.${p.status}`)}
                    </Badge>
                    {p.refundRequested && (
                      <Badge color="orange" variant="outline" radius="sm" ml={4}>
                        {t('customer.refundRequested')}
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td>
                    {allowed('refund') && p.staffRefundable && (
                      <Button
                        size="compact-xs"
                        variant="light"
                        color="red"
                        onClick={() => setDialog({ kind: 'refund', payment: p })}
                        aria-label={`${t('actions.refund')}: ${amount}, ${formatWhen(p.date, lang)}`}
                        data-testid="action-refund"
                      >
                        {t('actions.refund')}
                      </Button>
                    )}
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </StaffTable>
        )}
        <Text size="xs" c="dimmed" mt="xs">
          {t('customer.moneyBack', { count: c.moneyBackDays })}
        </Text>
      </Section>

      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <Section id="customer-devices" title={t('customer.devices')}>
          {c.devices.length === 0 ? (
            <EmptyState message={t('customer.noDevices')} />
          ) : (
            <StaffTable
              label={t('customer.devices')}
              minWidth={420}
              head={[t('customer.colDevice'), t('customer.colLocation'), t('customer.colHandshake')]}
            >
              {c.devices.map((d) => {
                const seen =
                  d.nodes
                    .map((n) => n.lastHandshakeAt)
                    .filter((x): x is string => !!x)
                    .sort()
                    .at(-1) ?? null;
                return (
                  <Table.Tr key={d.id}>
                    <Table.Td>
                      {d.name}
                      <Text size="xs" c="dimmed">
                        {t('customer.added', { when: formatWhen(d.createdAt, lang) })}
                      </Text>
                    </Table.Td>
                    <Table.Td>{d.nodes.length ? d.nodes.map((n) => `${n.city} (${n.node})`).join(', ') : '—'}</Table.Td>
                    <Table.Td title={formatWhen(seen, lang)}>
                      {seen ? formatAgo(seen, lang) : t('customer.never')}
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </StaffTable>
          )}
        </Section>

        <Section
          id="customer-services"
          title={t('customer.services')}
          actions={actionButton('reset-service-credentials', 'orange')}
        >
          {c.services.present ? (
            <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
              <Field label={t('customer.username')}>{c.services.username ?? '—'}</Field>
              <Field label={t('customer.updated')}>{formatWhen(c.services.updatedAt, lang)}</Field>
            </SimpleGrid>
          ) : (
            <EmptyState message={t('customer.noServices')} />
          )}
        </Section>

        <Section
          id="customer-sessions"
          title={t('customer.sessions')}
          actions={c.sessions.active > 0 && actionButton('sign-out-all', 'red')}
        >
          <Text size="sm" data-testid="customer-sessions">
            {t('customer.activeSessions', { count: c.sessions.active })}
          </Text>
        </Section>

        <Section id="customer-mails" title={t('customer.mails')}>
          {c.mails.length === 0 ? (
            <EmptyState message={t('customer.noMails')} />
          ) : (
            <StaffTable
              label={t('customer.mails')}
              minWidth={360}
              head={[t('customer.colSent'), t('customer.colMail')]}
            >
              {c.mails.map((m, i) => (
                <Table.Tr key={`${m.sentAt}-${i}`}>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatWhen(m.sentAt, lang)}</Table.Td>
                  <Table.Td>{t(`customer.mailKinds.${m.kind}`, { defaultValue: m.kind })}</Table.Td>
                </Table.Tr>
              ))}
            </StaffTable>
          )}
        </Section>
      </SimpleGrid>

      {dialog?.kind === 'grant-days' && (
        <GrantDaysDialog
          onClose={close}
          pending={!!current?.isPending}
          error={current?.error}
          onSubmit={(v) => run(v, t('done.grant-days', { count: v.days }))}
        />
      )}
      {dialog?.kind === 'refund' && (
        <RefundDialog
          onClose={close}
          payment={dialog.payment}
          amount={formatMoney(dialog.payment.amountMinor, dialog.payment.currency, lang)}
          pending={!!current?.isPending}
          error={current?.error}
          onSubmit={(v) => run({ paymentId: dialog.payment.paymentId, ...v }, t('done.refund'))}
        />
      )}
      {dialog?.kind === 'delete' && (
        <DeleteDialog
          onClose={close}
          email={a.email}
          pending={!!current?.isPending}
          error={current?.error}
          onSubmit={(v) =>
            run(v, t('done.delete', { email: a.email }), () => navigate('/staff/customers', { replace: true }))
          }
        />
      )}
      {dialog && dialog.kind in REASON_ACTIONS && (
        <ReasonDialog
          onClose={close}
          pending={!!current?.isPending}
          error={current?.error}
          title={t(`dialogs.titles.${textKey(dialog.kind as ReasonAction)}`)}
          body={t(`dialogs.bodies.${textKey(dialog.kind as ReasonAction)}`, { email: a.email })}
          confirmLabel={t(`actions.${textKey(dialog.kind as ReasonAction)}`)}
          danger={REASON_ACTIONS[dialog.kind as ReasonAction].danger}
          reasonRequired={REASON_ACTIONS[dialog.kind as ReasonAction].required}
          testId={`dialog-${dialog.kind}`}
          onSubmit={(v) =>
            run(
              dialog.kind === 'affiliate-portal' ? { ...v, enabled: !a.affiliatePortal } : v,
              t(`done.${textKey(dialog.kind as ReasonAction)}`),
            )
          }
        />
      )}
    </>
  );
}
