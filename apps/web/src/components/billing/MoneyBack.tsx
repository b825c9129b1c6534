import { Group, Stack, Text, ThemeIcon } from '@mantine/core';
import '@mantine/core/styles/ThemeIcon.layer.css';
import { useTranslation } from 'react-i18next';
import { MONEY_BACK_DAYS } from '@warren/contract';
import { IconShield } from '../icons';
import classes from './billing.module.css';

/** The money-back guarantee note (spec section 9: 7 days). */
export function MoneyBack({ days = MONEY_BACK_DAYS, compact = false }: { days?: number; compact?: boolean }) {
  const { t } = useTranslation();
  return (
    <Group gap="sm" wrap="nowrap" align="flex-start" className={classes.moneyBack} data-compact={compact || undefined}>
      <ThemeIcon color="teal" variant="light" radius="xl" size={compact ? 30 : 36}>
        <IconShield size={compact ? 16 : 20} />
      </ThemeIcon>
      <Stack gap={0}>
        <Text fw={600} size="sm">
          {t('payment.moneyBackTitle', { days })}
        </Text>
        {!compact && (
          <Text size="xs" c="dimmed">
            {t('payment.moneyBackText', { days })}
          </Text>
        )}
      </Stack>
    </Group>
  );
}
