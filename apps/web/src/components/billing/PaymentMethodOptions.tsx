import { Anchor, Group, Radio, Stack, Text } from '@mantine/core';
import '@mantine/core/styles/Radio.layer.css';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { methodId, type PaymentMethod } from '../../lib/billing/payment-methods';
import { IconCard, IconLock } from '../icons';
import a11y from '../a11y.module.css';
import classes from './billing.module.css';

/** Payment method choice; labels come from the API (provider names stay untranslated). */
export function PaymentMethodOptions({
  methods,
  value,
  onChange,
  label,
}: {
  methods: PaymentMethod[];
  value: string | null;
  onChange: (id: string) => void;
  label: string;
}) {
  const { t } = useTranslation();
  if (!methods.length) {
    return (
      <Text size="sm" c="dimmed" role="status">
        {t('payment.noMethods')}
      </Text>
    );
  }
  return (
    <Radio.Group value={value} onChange={onChange} label={label} labelProps={{ className: a11y.srOnly }}>
      <Stack gap={8}>
        {methods.map((m) => (
          <Radio.Card key={methodId(m)} value={methodId(m)} className={classes.methodCard} aria-label={m.label}>
            <Group wrap="nowrap" gap="sm">
              <Radio.Indicator checked={value === methodId(m)} />
              <IconCard size={20} />
              <Text fw={500} size="sm" className={classes.methodLabel}>
                {m.label}
              </Text>
            </Group>
          </Radio.Card>
        ))}
      </Stack>
    </Radio.Group>
  );
}

/**
 * The reassurance line under a Pay button. "Cancel anytime" only where it is true: the plan
 * renews and the customer can turn that off on the Subscription page, which it links to.
 */
export function TrustLine({
  moneyBackDays = 7,
  cancelAnytime = false,
}: {
  moneyBackDays?: number;
  cancelAnytime?: boolean;
}) {
  const { t } = useTranslation();
  return (
    <Stack gap={6} className={classes.trust}>
      <Group gap={6} wrap="nowrap" justify="center">
        <IconLock size={14} />
        <Text size="xs">{t('payment.secure')}</Text>
      </Group>
      <Text size="xs" ta="center">
        {cancelAnytime && (
          <>
            <Anchor component={Link} to="/subscription" inherit data-testid="cancel-anytime">
              {t('payment.cancelAnytime')}
            </Anchor>
            {' · '}
          </>
        )}
        {t('payment.trustLine', { days: moneyBackDays })}
      </Text>
    </Stack>
  );
}
