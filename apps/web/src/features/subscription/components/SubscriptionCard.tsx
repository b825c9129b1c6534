import { Alert, Anchor, Badge, Button, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import '@mantine/core/styles/SimpleGrid.layer.css';
import type { SubscriptionInfo } from '@warren/contract';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { openConfirm } from '../../../lib/confirm';
import { errorBodyOf, errorText } from '../../../lib/http-error';
import { snackbar } from '../../../lib/notify';
import { planDisplayName } from '../../../lib/plan';
import { useCancelSwitch } from '../api/cancel-switch';
import { useSetAutoRenew } from '../api/set-auto-renew';
import { useUpdatePaymentMethod } from '../api/update-payment-method';
import { formatDate, formatMoney } from '../lib/format';

const STATUS_COLOR = { active: 'teal', expired: 'red', free: 'gray' } as const;
const STATUS_KEY = {
  active: 'subscription.statusActive',
  expired: 'subscription.statusExpired',
  free: 'subscription.statusFree',
} as const;

function Fact({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div data-testid={testId}>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fw={600}>{children}</Text>
    </div>
  );
}

/** The plan: status, paid until / renews on, next charge, saved method, and auto-renew off/on with a confirmation. */
export function SubscriptionCard({ info }: { info: SubscriptionInfo }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const setAutoRenew = useSetAutoRenew();
  const cancelSwitch = useCancelSwitch();
  const updateMethod = useUpdatePaymentMethod();
  const changeCard = () =>
    updateMethod.mutate(undefined, {
      onSuccess: (r) => window.location.assign(r.redirectUrl),
      onError: (err) => snackbar(errorText(errorBodyOf(err), t('subscription.method.failed')), { kind: 'error' }),
    });
  const date = (iso: string | null) => (iso ? formatDate(iso, lang) : '—');
  const paid = info.status === 'active' && !info.plan.lifetime;

  const change = (enabled: boolean) =>
    setAutoRenew.mutate(
      { enabled },
      {
        onSuccess: (next) =>
          snackbar(enabled ? t('subscription.turnedOn') : t('subscription.turnedOff', { date: date(next.paidUntil) }), {
            kind: 'success',
          }),
        onError: (err) => snackbar(errorText(errorBodyOf(err), t('subscription.changeFailed')), { kind: 'error' }),
      },
    );
  const askOff = () =>
    openConfirm({
      title: t('subscription.turnOffTitle'),
      body: t('subscription.turnOffBody', { date: date(info.paidUntil) }),
      confirmLabel: t('subscription.turnOff'),
      cancelLabel: t('subscription.keepOn'),
      danger: true,
      confirmTestId: 'confirm-auto-renew-off',
      onConfirm: () => change(false),
    });
  const askOn = () =>
    openConfirm({
      title: t('subscription.turnOnTitle'),
      body: t('subscription.turnOnBody'),
      confirmLabel: t('subscription.turnOn'),
      cancelLabel: t('subscription.cancel'),
      confirmTestId: 'confirm-auto-renew-on',
      onConfirm: () => change(true),
    });

  return (
    <Card
      withBorder
      padding="lg"
      component="section"
      aria-labelledby="subscription-plan"
      data-testid="subscription-card"
    >
      <Group justify="space-between" mb="md" gap="sm">
        <div>
          <Text size="sm" c="dimmed">
            {t('subscription.plan')}
          </Text>
          <Title order={2} fz={22} id="subscription-plan">
            {planDisplayName(t, info.plan.tariffKey, info.plan.tariffName)}
          </Title>
        </div>
        <Badge
          color={STATUS_COLOR[info.status]}
          variant="light"
          size="lg"
          radius="sm"
          data-testid="subscription-status"
        >
          {t(STATUS_KEY[info.status])}
        </Badge>
      </Group>

      {info.plan.lifetime && <Text mb="md">{t('subscription.lifetime')}</Text>}
      {info.status !== 'active' && (
        <Group gap="sm" mb="md">
          <Text>
            {info.status === 'expired' && info.paidUntil
              ? `${t('subscription.paidUntil')}: ${date(info.paidUntil)}`
              : t('subscription.freeHint')}
          </Text>
          <Button component={Link} to="/plans" variant="light" size="xs">
            {t('subscription.seePlans')}
          </Button>
        </Group>
      )}

      {paid && (
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md" verticalSpacing="md" mb="md">
          <Fact label={info.autoRenew ? t('subscription.paidUntil') : t('subscription.endsOn')} testId="paid-until">
            {date(info.paidUntil)}
          </Fact>
          <Fact label={t('subscription.autoRenew')} testId="auto-renew-state">
            {info.autoRenew ? t('subscription.on') : t('subscription.off')}
          </Fact>
          {info.autoRenew && info.renewsAt && (
            <Fact label={t('subscription.renewsOn')} testId="renews-on">
              {date(info.renewsAt)}
            </Fact>
          )}
          {info.autoRenew && info.nextCharge && (
            <Fact label={t('subscription.nextCharge')} testId="next-charge">
              {formatMoney(info.nextCharge.amountMinor, info.nextCharge.currency, lang)}
            </Fact>
          )}
          <Fact label={t('subscription.paymentMethod')} testId="payment-method">
            {info.paymentMethod?.label ?? t('subscription.noMethod')}
          </Fact>
        </SimpleGrid>
      )}

      {paid && info.paymentMethod && (
        <Group gap="sm" mb="md" data-testid="method-change">
          {info.canUpdateMethod ? (
            <Button
              variant="default"
              size="xs"
              onClick={changeCard}
              loading={updateMethod.isPending}
              data-testid="change-card"
            >
              {t('subscription.method.change')}
            </Button>
          ) : (
            <Text size="sm" c="dimmed" data-testid="cannot-change-card">
              {t('subscription.method.cannot')}
            </Text>
          )}
        </Group>
      )}

      {paid && !info.autoRenew && (
        <Text size="sm" mb="md" data-testid="ends-note">
          {t('subscription.endsNote', { date: date(info.paidUntil) })}
        </Text>
      )}

      {info.scheduledChange && (
        <Alert color="blue" variant="light" mb="md" data-testid="scheduled-change">
          <Stack gap={6} align="flex-start">
            <Text size="sm">
              {t('subscription.switch.scheduledNote', {
                plan: planDisplayName(t, info.scheduledChange.tariffKey, info.scheduledChange.tariffName),
                date: date(info.scheduledChange.effectiveAt),
                amount: info.scheduledChange.nextCharge
                  ? formatMoney(
                      info.scheduledChange.nextCharge.amountMinor,
                      info.scheduledChange.nextCharge.currency,
                      lang,
                    )
                  : '—',
              })}
            </Text>
            <Button
              size="xs"
              variant="default"
              loading={cancelSwitch.isPending}
              data-testid="cancel-scheduled-change"
              onClick={() =>
                cancelSwitch.mutate(undefined, {
                  onSuccess: () => snackbar(t('subscription.switch.cancelled'), { kind: 'success' }),
                  onError: (err) =>
                    snackbar(errorText(errorBodyOf(err), t('subscription.switch.failed')), { kind: 'error' }),
                })
              }
            >
              {t('subscription.switch.cancelChange')}
            </Button>
          </Stack>
        </Alert>
      )}

      {info.lastRenewalError && (
        <Alert color="yellow" variant="light" mb="md" data-testid="renewal-error">
          <Stack gap={4}>
            <Text size="sm">{t('subscription.renewalFailed', { error: info.lastRenewalError })}</Text>
            <Anchor component={Link} to="/plans" size="sm" fw={600}>
              {t('subscription.payByHand')}
            </Anchor>
          </Stack>
        </Alert>
      )}

      {paid && (
        <Group>
          {info.autoRenew ? (
            <Button
              variant="light"
              color="red"
              onClick={askOff}
              loading={setAutoRenew.isPending}
              data-testid="auto-renew-off"
            >
              {t('subscription.turnOff')}
            </Button>
          ) : info.canAutoRenew ? (
            <Button onClick={askOn} loading={setAutoRenew.isPending} data-testid="auto-renew-on">
              {t('subscription.turnOn')}
            </Button>
          ) : (
            <Text size="sm" c="dimmed" data-testid="cannot-renew">
              {t('subscription.cannotRenew')}
            </Text>
          )}
        </Group>
      )}
    </Card>
  );
}
