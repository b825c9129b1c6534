import { useEffect, useState } from 'react';
import { Group, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatCountdown, secondsUntil } from '../../../lib/billing/discount';
import { IconGift } from '../../../components/icons';
import classes from '../routes/CheckoutPage.module.css';

/**
 * The discounted checkout's countdown to the end of the one-day window. At zero the page stops
 * selling at the discount (`onExpire`; the server refuses it from then on too).
 */
export function DiscountCountdown({
  endsAtMs,
  percent,
  onExpire,
}: {
  endsAtMs: number;
  percent: number;
  onExpire?: () => void;
}) {
  const { t } = useTranslation();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(id);
  }, []);
  const left = secondsUntil(endsAtMs, now);
  const expired = left <= 0;
  useEffect(() => {
    if (expired) onExpire?.();
  }, [expired, onExpire]);
  return (
    <div className={classes.discount} role="timer" aria-live="off" data-testid="discount-countdown">
      <Group gap={10} wrap="nowrap" justify="center">
        <IconGift size={20} />
        <Text fw={600} size="sm" className={classes.discountLong}>
          {t('checkout.discountReserved', { percent })}
        </Text>
        <Text fw={600} size="sm" className={classes.discountShort}>
          {t('checkout.discountReservedShort', { percent })}
        </Text>
        {/* The server's HTML says the time left when it rendered; the browser's first render a second or two less. */}
        <span className={classes.discountClock} suppressHydrationWarning>
          {formatCountdown(left)}
        </span>
      </Group>
    </div>
  );
}
