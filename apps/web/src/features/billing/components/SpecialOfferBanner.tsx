import { ActionIcon, Button, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { formatCountdown } from '../../../lib/billing/discount';
import { hoursLeft } from '../../../lib/billing/special-offer';
import { IconGift } from '../../../components/icons';
import type { SpecialOffer } from '../hooks/use-special-offer';
import classes from './SpecialOfferBanner.module.css';

/** Desktop: the full sentence with hours left; mobile: short text. Both show the live countdown. */
export function SpecialOfferBanner({ offer, short, height }: { offer: SpecialOffer; short: boolean; height: number }) {
  const { t } = useTranslation();
  return (
    <div
      className={classes.banner}
      style={{ height }}
      role="region"
      aria-label={t('payment.offer.label')}
      data-testid="special-offer-banner"
    >
      <IconGift size={20} className={classes.icon} />
      <Text className={classes.text} data-short={short || undefined}>
        {short ? t('payment.offer.mobile') : t('payment.offer.desktop', { count: hoursLeft(offer.secondsLeft) })}
      </Text>
      <span className={classes.clock} role="timer" data-testid="special-offer-countdown">
        {formatCountdown(offer.secondsLeft)}
      </span>
      <Button
        component={Link}
        to="/special-plan"
        size="compact-sm"
        variant="white"
        color="dark"
        radius="md"
        className={classes.cta}
      >
        {t('payment.offer.viewDeal')}
      </Button>
      <ActionIcon
        variant="transparent"
        c="white"
        onClick={offer.close}
        aria-label={t('payment.offer.close')}
        size="sm"
        className={classes.close}
      >
        <svg
          width="16"
          height="16"
          viewBox="0 0 24 24"
          fill="none"
          stroke="currentColor"
          strokeWidth="2.4"
          strokeLinecap="round"
          aria-hidden="true"
        >
          <path d="M6 6l12 12M18 6L6 18" />
        </svg>
      </ActionIcon>
    </div>
  );
}
