import { Alert, Button, Card, Group, Radio, RadioCard, RadioIndicator, Stack, Table, Text, Title } from '@mantine/core';
import '@mantine/core/styles/Radio.layer.css';
import '@mantine/core/styles/RadioCard.layer.css';
import '@mantine/core/styles/RadioIndicator.layer.css';
import '@mantine/core/styles/Table.layer.css';
import type { SubscriptionInfo, SwitchOptions } from '@warren/contract';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePaymentMethods, methodId } from '../../../lib/billing/payment-methods';
import { errorBodyOf, errorText } from '../../../lib/http-error';
import { snackbar } from '../../../lib/notify';
import { planDisplayName } from '../../../lib/plan';
import { useSwitchOptions } from '../api/get-switch-options';
import { useSwitchPlan } from '../api/switch-plan';
import { formatDate, formatMoney } from '../lib/format';

type Option = SwitchOptions['options'][number];

/**
 * Change the period (issue 23), as Proton shows it: every other period with what it costs now.
 * A longer one: the new price, the credit for the unused part, what is charged today, and the new
 * paid-until; paid through the provider's page. A shorter one: from the paid-until, nothing today.
 */
export function SwitchPlanCard({ info }: { info: SubscriptionInfo }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const eligible = info.status === 'active' && !info.plan.lifetime;
  const options = useSwitchOptions(eligible);
  const methods = usePaymentMethods();
  const switchPlan = useSwitchPlan();
  const [chosen, setChosen] = useState<string | null>(null);
  const [method, setMethod] = useState<string | null>(null);
  if (!eligible || !options.data || options.data.options.length === 0) return null;

  const money = (minor: number, currency: string) => formatMoney(minor, currency, lang);
  const date = (iso: string) => formatDate(iso, lang);
  const list = options.data.options;
  const selected = list.find((o) => o.tariffKey === chosen) ?? null;
  const payWith = (methods.data?.methods ?? []).filter((m) => options.data.providers.includes(m.provider));
  const pickedMethod = payWith.find((m) => methodId(m) === method) ?? payWith[0];

  const start = (o: Option) => {
    const q = o.quote;
    switchPlan.mutate(
      {
        tariffId: o.tariffId,
        ...(q.kind === 'now' && pickedMethod
          ? {
              provider: pickedMethod.provider,
              type: pickedMethod.type || undefined,
              expectedChargeMinor: q.chargeMinor,
            }
          : {}),
        returnPath: '/subscription?switch=done',
        language: (['en', 'ru', 'zh'].includes(lang) ? lang : 'en') as 'en' | 'ru' | 'zh',
      },
      {
        onSuccess: (result) => {
          if (result.kind === 'checkout' && result.payment.redirectUrl) {
            window.location.assign(result.payment.redirectUrl);
            return;
          }
          if (result.kind === 'scheduled') {
            setChosen(null);
            snackbar(
              t('subscription.switch.scheduledDone', {
                plan: planDisplayName(t, o.tariffKey, o.tariffName),
                date: q.kind === 'scheduled' ? date(q.effectiveAt) : '',
              }),
              { kind: 'success' },
            );
          }
        },
        onError: (err) => snackbar(errorText(errorBodyOf(err), t('subscription.switch.failed')), { kind: 'error' }),
      },
    );
  };

  const summary = (o: Option) => {
    const q = o.quote;
    if (q.kind === 'now') return t('subscription.switch.summaryNow', { amount: money(q.chargeMinor, q.currency) });
    if (q.kind === 'scheduled')
      return t('subscription.switch.summaryScheduled', {
        date: date(q.effectiveAt),
        amount: money(q.nextChargeMinor, q.currency),
      });
    return t(`subscription.switch.refused.${q.reason}`);
  };

  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="switch-plan-title" data-testid="switch-card">
      <Title order={2} fz={18} id="switch-plan-title" mb={4}>
        {t('subscription.switch.title')}
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        {t('subscription.switch.intro')}
      </Text>
      <Radio.Group value={chosen} onChange={setChosen} aria-labelledby="switch-plan-title">
        <Stack gap="xs">
          {list.map((o) => (
            <RadioCard
              key={o.tariffKey}
              value={o.tariffKey}
              disabled={o.quote.kind === 'refused'}
              radius="md"
              p="sm"
              data-testid={`switch-option-${o.tariffKey}`}
              aria-label={planDisplayName(t, o.tariffKey, o.tariffName)}
            >
              <Group wrap="nowrap" align="flex-start">
                <RadioIndicator disabled={o.quote.kind === 'refused'} />
                <div>
                  <Text fw={600}>{planDisplayName(t, o.tariffKey, o.tariffName)}</Text>
                  <Text size="sm" c={o.quote.kind === 'refused' ? 'dimmed' : undefined}>
                    {summary(o)}
                  </Text>
                </div>
              </Group>
            </RadioCard>
          ))}
        </Stack>
      </Radio.Group>

      {selected?.quote.kind === 'now' && (
        <Stack gap="sm" mt="md" data-testid="switch-quote">
          <Table withRowBorders={false} verticalSpacing={4} maw={460}>
            <Table.Tbody>
              <Table.Tr>
                <Table.Td>
                  {t('subscription.switch.price', {
                    plan: planDisplayName(t, selected.tariffKey, selected.tariffName),
                  })}
                </Table.Td>
                <Table.Td ta="right" style={{ whiteSpace: 'nowrap' }} data-testid="switch-price">
                  {money(selected.quote.priceMinor, selected.quote.currency)}
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Td>
                  {t('subscription.switch.credit', {
                    plan: planDisplayName(t, info.plan.tariffKey, info.plan.tariffName),
                  })}
                </Table.Td>
                <Table.Td ta="right" style={{ whiteSpace: 'nowrap' }} data-testid="switch-credit">
                  −{money(selected.quote.creditMinor, selected.quote.currency)}
                </Table.Td>
              </Table.Tr>
              <Table.Tr fw={700}>
                <Table.Td>{t('subscription.switch.dueToday')}</Table.Td>
                <Table.Td ta="right" style={{ whiteSpace: 'nowrap' }} data-testid="switch-charge">
                  {money(selected.quote.chargeMinor, selected.quote.currency)}
                </Table.Td>
              </Table.Tr>
            </Table.Tbody>
          </Table>
          <Text size="sm" data-testid="switch-period">
            {t('subscription.switch.newPeriod', { date: date(selected.quote.periodEnd) })}
            {selected.quote.carriedDays > 0 &&
              ` ${t('subscription.switch.carried', { count: selected.quote.carriedDays })}`}
          </Text>
          <Text size="xs" c="dimmed">
            {t('subscription.switch.rule')}
          </Text>
          {payWith.length > 1 && (
            <Radio.Group
              label={t('subscription.switch.payWith')}
              value={pickedMethod ? methodId(pickedMethod) : null}
              onChange={setMethod}
            >
              <Group mt={4}>
                {payWith.map((m) => (
                  <Radio key={methodId(m)} value={methodId(m)} label={m.label} />
                ))}
              </Group>
            </Radio.Group>
          )}
          {payWith.length === 0 && !methods.isLoading && (
            <Alert color="yellow" variant="light">
              {t('subscription.switch.noMethod')}
            </Alert>
          )}
          <Group>
            <Button
              onClick={() => start(selected)}
              loading={switchPlan.isPending}
              disabled={!pickedMethod}
              data-testid="switch-pay"
            >
              {t('subscription.switch.pay', { amount: money(selected.quote.chargeMinor, selected.quote.currency) })}
            </Button>
          </Group>
        </Stack>
      )}

      {selected?.quote.kind === 'scheduled' && (
        <Stack gap="sm" mt="md" data-testid="switch-scheduled-quote">
          <Text size="sm">
            {t('subscription.switch.scheduledExplain', {
              plan: planDisplayName(t, selected.tariffKey, selected.tariffName),
              date: date(selected.quote.effectiveAt),
              amount: money(selected.quote.nextChargeMinor, selected.quote.currency),
            })}
          </Text>
          <Group>
            <Button onClick={() => start(selected)} loading={switchPlan.isPending} data-testid="switch-schedule">
              {t('subscription.switch.schedule')}
            </Button>
          </Group>
        </Stack>
      )}
    </Card>
  );
}
