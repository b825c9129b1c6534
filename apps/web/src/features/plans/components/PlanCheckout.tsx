import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Group, SimpleGrid, Skeleton, Stack, Text, TextInput } from '@mantine/core';
import '@mantine/core/styles/SimpleGrid.layer.css';
import '@mantine/core/styles/Skeleton.layer.css';
import { useTranslation } from 'react-i18next';
import { PlanOptions } from '../../../components/billing/PlanOptions';
import { TrustLine } from '../../../components/billing/PaymentMethodOptions';
import {
  AutoRenewChoice,
  CurrencySelect,
  MethodChoice,
  PayError,
  PricesFailed,
} from '../../../components/billing/CheckoutParts';
import { MoneyBack } from '../../../components/billing/MoneyBack';
import { billedText, planName } from '../../../components/billing/plan-text';
import { IconLock } from '../../../components/icons';
import { useCheckout } from '../../../lib/billing/checkout-state';
import { formatMoney } from '../../../lib/billing/format';
import { getGuestPriceData } from '../../../lib/billing/guest-price-data';
import { useSession } from '../../../lib/session';
import { useCaptcha } from '../../../lib/captcha';
import classes from './PlanCheckout.module.css';

interface Props {
  /** /plans/{selectedPlan}: the landing price list. */
  selectedPlan?: string;
  /** Only these plans, in this order (the special plan); else every paid plan. */
  tariffIds?: number[];
  /** Sell at this price list regardless of the landing list (special-offer). */
  priceList?: string;
  withPromo?: boolean;
  layout?: 'grid' | 'list';
  /**
   * The special offer: no plan cards; its price is quoted by getGuestPriceData with the
   * member's bearer token (the API keeps the offer list to qualifying members).
   */
  offer?: boolean;
}

/** Plan cards, promo code, payment method, the renewal choice and Pay, for signed-in users (plans and special plan). */
export function PlanCheckout({
  selectedPlan,
  tariffIds,
  priceList,
  withPromo = true,
  layout = 'grid',
  offer = false,
}: Props) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const accountId = useSession((s) => s.user?.id ?? null);
  const captcha = useCaptcha();
  const checkout = useCheckout({ selectedPlan, tariffIds, priceList, accountId, captcha });
  const { prices, plans, chosenId, plan, setTariffId, currency, promo, busy } = checkout;
  const [promoInput, setPromoInput] = useState('');

  const offerTariff = tariffIds?.[0];
  const offerQuote = useQuery({
    queryKey: ['billing', 'guestPrice', offerTariff, currency, checkout.priceList],
    queryFn: () =>
      getGuestPriceData({ tariffId: offerTariff, currency: currency ?? undefined, priceList: checkout.priceList }),
    enabled: offer && !!offerTariff && !!currency,
    staleTime: 60_000,
  });
  const quote = offerQuote.data && 'amount' in offerQuote.data ? offerQuote.data : null;
  // A code covers some plans only: say so for the chosen plan instead of "applied".
  const promoFitsPlan = !!plan?.promo;

  return (
    <Stack gap="lg">
      {!offer && (
        <>
          <Group justify="space-between" align="center" gap="sm">
            <Text fw={700} size="lg">
              {t('plans.choose')}
            </Text>
            <CurrencySelect checkout={checkout} />
          </Group>
          {prices.isPending && !prices.data ? (
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              {[0, 1, 2].map((i) => (
                <Skeleton key={i} h={150} radius="lg" />
              ))}
            </SimpleGrid>
          ) : prices.isError ? (
            <PricesFailed checkout={checkout} />
          ) : (
            <PlanOptions
              plans={plans}
              value={chosenId}
              onChange={setTariffId}
              layout={layout}
              label={t('plans.choose')}
            />
          )}
        </>
      )}

      <Card withBorder padding="lg" radius="lg" className={classes.checkout}>
        <div className={classes.columns}>
          <Stack gap="md">
            <div>
              <Text fw={600} mb={8}>
                {t('checkout.stepMethod')}
              </Text>
              <MethodChoice checkout={checkout} />
            </div>
            {withPromo && (
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  void checkout.applyPromo(promoInput);
                }}
                noValidate
              >
                <Group align="flex-start" gap={8} wrap="nowrap">
                  <TextInput
                    label={t('payment.promo.label')}
                    placeholder={t('payment.promo.placeholder')}
                    value={promoInput}
                    onChange={(e) => setPromoInput(e.currentTarget.value)}
                    error={checkout.promoError}
                    maxLength={40}
                    autoComplete="off"
                    size="sm"
                    style={{ flex: 1 }}
                  />
                  <Button type="submit" variant="default" size="sm" mt={25} loading={checkout.checkingPromo}>
                    {t('payment.promo.apply')}
                  </Button>
                </Group>
                {promo && prices.data?.promo && plan && (
                  <Text
                    size="sm"
                    c={promoFitsPlan ? 'teal.7' : 'dimmed'}
                    mt={6}
                    role="status"
                    data-testid="promo-status"
                  >
                    {promoFitsPlan
                      ? t('payment.promo.applied', {
                          code: prices.data.promo.code,
                          percent: prices.data.promo.percentOff,
                        })
                      : t('payment.promo.notForPlan', { code: prices.data.promo.code, plan: planName(t, plan) })}
                  </Text>
                )}
              </form>
            )}
          </Stack>
          <Stack gap="sm" className={classes.summary}>
            {offer ? (
              quote ? (
                <>
                  <Group justify="space-between" wrap="nowrap" align="baseline">
                    <Text size="sm">{quote.tariffName}</Text>
                    <Group gap={8} wrap="nowrap" align="baseline">
                      {quote.listAmount > quote.amount && (
                        <Text size="sm" c="dimmed" td="line-through" data-testid="special-list-price">
                          {formatMoney(quote.listAmount, quote.currency, lang)}
                        </Text>
                      )}
                      <Text fw={700} size="xl" data-testid="special-price">
                        {formatMoney(quote.amount, quote.currency, lang)}
                      </Text>
                    </Group>
                  </Group>
                  {quote.listAmount > quote.amount && (
                    <Text size="xs" c="teal.7" fw={600}>
                      {t('plans.special.youSave', {
                        amount: formatMoney(quote.listAmount - quote.amount, quote.currency, lang),
                      })}
                    </Text>
                  )}
                </>
              ) : offerQuote.isPending && offerQuote.fetchStatus !== 'idle' ? (
                <Skeleton h={44} />
              ) : (
                <Text size="sm" c="dimmed">
                  {t('plans.special.priceNote')}
                </Text>
              )
            ) : plan ? (
              <>
                <Group justify="space-between" wrap="nowrap">
                  <Text size="sm">{planName(t, plan)}</Text>
                  <Text fw={700} size="xl" data-testid="plans-total">
                    {formatMoney(plan.amount, plan.currency, lang)}
                  </Text>
                </Group>
                <Text size="xs" c="dimmed">
                  {billedText(t, plan, lang)}
                </Text>
              </>
            ) : (
              <Skeleton h={44} />
            )}
            <AutoRenewChoice checkout={checkout} />
            {captcha.element}
            <Button
              size="md"
              fullWidth
              leftSection={<IconLock size={18} />}
              onClick={() => void checkout.pay()}
              loading={busy}
              disabled={!plan || !checkout.method}
              data-testid="pay-button"
            >
              {offer && quote
                ? t('checkout.pay', { price: formatMoney(quote.amount, quote.currency, lang) })
                : plan && !offer
                  ? t('checkout.pay', { price: formatMoney(plan.amount, plan.currency, lang) })
                  : t('checkout.payNoPrice')}
            </Button>
            <PayError checkout={checkout} />
            <MoneyBack compact />
            <TrustLine cancelAnytime={checkout.autoRenew} />
          </Stack>
        </div>
      </Card>
    </Stack>
  );
}
