import { Alert, Anchor, NativeSelect, Skeleton, Switch, Text } from '@mantine/core';
import '@mantine/core/styles/Skeleton.layer.css';
import '@mantine/core/styles/Switch.layer.css';
import { useTranslation } from 'react-i18next';
import type { CheckoutState } from '../../lib/billing/checkout-state';
import { methodId } from '../../lib/billing/payment-methods';
import { PaymentMethodOptions } from './PaymentMethodOptions';
import classes from './billing.module.css';

// The pieces both checkouts (/checkout* and the plans pages) show from one checkout state.

/**
 * The currency choice, when prices exist in more than one. The browser's own select: a handful of
 * options need no searchable dropdown, a phone shows its native picker, and the checkout's first
 * screen does not load and hydrate a popover, a portal and a scroll area for it (~40 kB of script).
 */
export function CurrencySelect({
  checkout,
  size = 'sm',
  width = 100,
}: {
  checkout: CheckoutState;
  size?: 'xs' | 'sm';
  width?: number;
}) {
  const { t } = useTranslation();
  const { currency, currencyOptions, setCurrency } = checkout;
  if (currencyOptions.length <= 1 || !currency) return null;
  return (
    <NativeSelect
      aria-label={t('payment.currency')}
      data={currencyOptions}
      value={currency}
      onChange={(e) => e.currentTarget.value && setCurrency(e.currentTarget.value)}
      size={size}
      w={width}
    />
  );
}

/** Prices that did not load, with a retry. */
export function PricesFailed({ checkout, mt }: { checkout: CheckoutState; mt?: string }) {
  const { t } = useTranslation();
  return (
    <Alert color="red" variant="light" mt={mt}>
      {t('payment.pricesFailed')}{' '}
      <Anchor component="button" onClick={() => void checkout.prices.refetch()}>
        {t('payment.retry')}
      </Anchor>
    </Alert>
  );
}

/** The payment method radio cards (a placeholder while they load). */
export function MethodChoice({ checkout }: { checkout: CheckoutState }) {
  const { t } = useTranslation();
  const { methods, method, setMethod } = checkout;
  if (methods.isPending) return <Skeleton h={48} radius="md" />;
  return (
    <PaymentMethodOptions
      methods={methods.data?.methods ?? []}
      value={method ? methodId(method) : null}
      onChange={setMethod}
      label={t('checkout.stepMethod')}
    />
  );
}

/**
 * Whether the plan renews (issue 13): a switch where the plan and the provider can renew, else
 * the plain statement that this is a one-off payment. Nothing until a plan and a method are known.
 */
export function AutoRenewChoice({ checkout }: { checkout: CheckoutState }) {
  const { t } = useTranslation();
  const { plan, method, renewable, autoRenew, setAutoRenew } = checkout;
  if (!plan || !method) return null;
  if (!renewable) {
    return (
      <Text size="sm" c="dimmed" data-testid="one-off-note">
        {t('payment.autoRenew.oneOff')}
      </Text>
    );
  }
  return (
    <Switch
      className={classes.autoRenew}
      checked={autoRenew}
      onChange={(e) => setAutoRenew(e.currentTarget.checked)}
      label={t('payment.autoRenew.label')}
      description={autoRenew ? t('payment.autoRenew.onText') : t('payment.autoRenew.offText')}
      data-testid="auto-renew"
    />
  );
}

/** Why Pay did not go on to the provider. */
export function PayError({ checkout }: { checkout: CheckoutState }) {
  if (!checkout.payError) return null;
  return (
    <Alert color="red" variant="light" role="alert">
      {checkout.payError}
    </Alert>
  );
}
