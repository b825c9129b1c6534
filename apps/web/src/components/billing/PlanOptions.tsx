import { Badge, Group, Radio, Stack, Text } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import '@mantine/core/styles/Radio.layer.css';
import { useTranslation } from 'react-i18next';
import type { TariffPrice } from '@warren/contract';
import { formatMoney, formatPerMonth, savingsPercent } from '../../lib/billing/format';
import { billedText, planName } from './plan-text';
import a11y from '../a11y.module.css';
import classes from './billing.module.css';

interface Props {
  plans: TariffPrice[];
  value: number | null;
  onChange: (tariffId: number) => void;
  /** grid: cards side by side (plans page); list: rows (checkout). */
  layout?: 'grid' | 'list';
  label: string;
}

/** Plan choice as radio cards: price per month up front, what is billed and the saving. */
export function PlanOptions({ plans, value, onChange, layout = 'grid', label }: Props) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const monthly = plans.find((p) => p.key === '1-month');
  return (
    <Radio.Group
      value={value === null ? null : String(value)}
      onChange={(v) => onChange(Number(v))}
      label={label}
      labelProps={{ className: a11y.srOnly }}
    >
      <div className={layout === 'grid' ? classes.planGrid : classes.planList} data-count={plans.length}>
        {plans.map((plan) => {
          const save = savingsPercent(plan, monthly);
          const best = plan.key === '1-year';
          const perMonth = plan.monthlyAmount !== null && !plan.isTrial && plan.key !== '1-month';
          const selected = value === plan.tariffId;
          return (
            <Radio.Card
              key={plan.tariffId}
              value={String(plan.tariffId)}
              className={classes.planCard}
              data-layout={layout}
              data-best={best || undefined}
              data-testid={`plan-${plan.key}`}
              aria-label={planName(t, plan)}
            >
              {best && <span className={classes.bestRibbon}>{t('payment.bestValue')}</span>}
              <Group wrap="nowrap" align="flex-start" gap="sm" className={classes.planInner}>
                <Radio.Indicator mt={3} checked={selected} />
                <Stack gap={4} className={classes.planBody}>
                  <Group gap={8} wrap="wrap">
                    <Text fw={700} fz={layout === 'grid' ? 18 : 16}>
                      {planName(t, plan)}
                    </Text>
                    {save > 0 && (
                      <Badge color="teal" variant="light" radius="sm" size="sm">
                        {t('payment.save', { percent: save })}
                      </Badge>
                    )}
                    {/* A promo code is marked only on the plans it discounts. */}
                    {plan.promo && (
                      <Badge color="grape" variant="light" radius="sm" size="sm" data-testid={`promo-${plan.key}`}>
                        {t('payment.promo.badge', { code: plan.promo.code, percent: plan.promo.percentOff })}
                      </Badge>
                    )}
                  </Group>
                  <div className={classes.priceBlock}>
                    <span className={classes.price}>
                      {perMonth
                        ? formatPerMonth(plan.monthlyAmount!, plan.currency, lang)
                        : formatMoney(plan.amount, plan.currency, lang)}
                    </span>
                    {perMonth && <span className={classes.perMonth}>{t('payment.perMonth')}</span>}
                  </div>
                  <Text size="sm" c="dimmed">
                    {plan.listAmount > plan.amount && (
                      <>
                        <s>{formatMoney(plan.listAmount, plan.currency, lang)}</s>{' '}
                      </>
                    )}
                    {billedText(t, plan, lang)}
                  </Text>
                </Stack>
              </Group>
            </Radio.Card>
          );
        })}
      </div>
    </Radio.Group>
  );
}
