import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Anchor, Button, Card, Group, Select, SimpleGrid, Skeleton, Stack, Text, TextInput } from '@mantine/core';
import '@mantine/core/styles/SimpleGrid.layer.css';
import '@mantine/core/styles/Skeleton.layer.css';
import { useTranslation } from 'react-i18next';
import type { TariffPrice } from '@warren/contract';
import { PlanOptions } from '../../../components/billing/PlanOptions';
import { PaymentMethodOptions, TrustLine } from '../../../components/billing/PaymentMethodOptions';
import { MoneyBack } from '../../../components/billing/MoneyBack';
import { billedText, planName } from '../../../components/billing/plan-text';
import { IconLock } from '../../../components/icons';
import { useCurrencies } from '../../../lib/billing/currencies';
import { defaultPlanId, formatMoney, orderPlans } from '../../../lib/billing/format';
import { getGuestPriceData } from '../../../lib/billing/guest-price-data';
import { useIpInfo } from '../../../lib/billing/ip-info';
import { useLandingPriceList } from '../../../lib/billing/landing-price-list';
import { usePay } from '../../../lib/billing/payment-flow';
import { methodId, usePaymentMethods } from '../../../lib/billing/payment-methods';
import { errorBodyOf, errorText } from '../../../lib/http-error';
import { isLanguage } from '../../../lib/i18n';
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

/** Plan cards, promo code, payment method and Pay, for signed-in users (plans and special plan). */
export function PlanCheckout({ selectedPlan, tariffIds, priceList, withPromo = true, layout = 'grid', offer = false }: Props) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const currencies = useCurrencies();
  const ip = useIpInfo();
  const [currencyChoice, setCurrencyChoice] = useState<string | null>(null);
  const currency = currencyChoice ?? ip.data?.currency ?? currencies.data?.default ?? (ip.isError ? 'USD' : null);
  const [promo, setPromo] = useState<string | null>(null);
  const prices = useLandingPriceList({ selectedPlan, currency: currency ?? undefined, promocode: promo ?? undefined }, !!currency);
  const plans = useMemo(() => orderPlans(prices.data?.plans ?? [], tariffIds), [prices.data, tariffIds]);
  const [tariffId, setTariffId] = useState<number | null>(null);
  const chosenId = tariffId ?? defaultPlanId(plans, tariffIds);
  const plan: TariffPrice | null = plans.find((p) => p.tariffId === chosenId) ?? null;

  const methods = usePaymentMethods();
  const [methodChoice, setMethodChoice] = useState<string | null>(null);
  const method = methods.data?.methods.find((m) => methodId(m) === methodChoice) ?? methods.data?.methods[0] ?? null;

  const [promoInput, setPromoInput] = useState('');
  const [promoError, setPromoError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);

  const list = priceList ?? prices.data?.priceList;
  const offerTariff = tariffIds?.[0];
  const offerQuote = useQuery({
    queryKey: ['billing', 'guestPrice', offerTariff, currency, list],
    queryFn: () => getGuestPriceData({ tariffId: offerTariff, currency: currency ?? undefined, priceList: list }),
    enabled: offer && !!offerTariff && !!currency,
    staleTime: 60_000,
  });
  const quote = offerQuote.data && 'amount' in offerQuote.data ? offerQuote.data : null;
  const attempt = `${chosenId}|${currency}|${method ? methodId(method) : ''}|${promo ?? ''}|${list ?? ''}`;
  const { pay, busy, error: payError } = usePay(attempt);

  const applyPromo = async () => {
    const code = promoInput.trim();
    setPromoError(null);
    if (!code) {
      setPromo(null);
      return;
    }
    if (!plan || !currency) return;
    setChecking(true);
    try {
      // The guest price answers with the code's problem (expired, used up, other plans only) as a 422.
      await getGuestPriceData({ tariffId: plan.tariffId, currency, promocode: code, priceList: prices.data?.priceList });
      setPromo(code.toUpperCase());
    } catch (err) {
      const body = errorBodyOf(err);
      setPromoError(body?.errors?.promocode?.join(' ') ?? errorText(body, t('payment.promo.invalid')));
    } finally {
      setChecking(false);
    }
  };

  const language = isLanguage(i18n.resolvedLanguage) ? i18n.resolvedLanguage : undefined;
  const onPay = async () => {
    if (!plan || !method || !currency) return;
    // The code goes with the payment only for a plan it discounts (the server would refuse it for another).
    const promocode = promo && plan.promo ? promo : undefined;
    const ok = await pay({ tariffId: plan.tariffId, currency, provider: method.provider, type: method.type || undefined, priceList: list, promocode, language }, plan.name);
    if (ok === false) void prices.refetch();
  };
  // A code covers some plans only: say so for the chosen plan instead of "applied".
  const promoFitsPlan = !!plan?.promo;

  const currencyOptions = currencies.data?.currencies ?? (currency ? [currency] : []);

  return (
    <Stack gap="lg">
      {!offer && (
      <>
      <Group justify="space-between" align="center" gap="sm">
        <Text fw={700} size="lg">
          {t('plans.choose')}
        </Text>
        {currencyOptions.length > 1 && currency && (
          <Select
            aria-label={t('payment.currency')}
            data={currencyOptions}
            value={currency}
            onChange={(v) => v && setCurrencyChoice(v)}
            allowDeselect={false}
            size="sm"
            w={100}
          />
        )}
      </Group>
      {prices.isPending && !prices.data ? (
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          {[0, 1, 2].map((i) => (
            <Skeleton key={i} h={150} radius="lg" />
          ))}
        </SimpleGrid>
      ) : prices.isError ? (
        <Alert color="red" variant="light">
          {t('payment.pricesFailed')}{' '}
          <Anchor component="button" onClick={() => void prices.refetch()}>
            {t('payment.retry')}
          </Anchor>
        </Alert>
      ) : (
        <PlanOptions plans={plans} value={chosenId} onChange={setTariffId} layout={layout} label={t('plans.choose')} />
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
              {methods.isPending ? (
                <Skeleton h={48} />
              ) : (
                <PaymentMethodOptions
                  methods={methods.data?.methods ?? []}
                  value={method ? methodId(method) : null}
                  onChange={setMethodChoice}
                  label={t('checkout.stepMethod')}
                />
              )}
            </div>
            {withPromo && (
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  void applyPromo();
                }}
                noValidate
              >
                <Group align="flex-start" gap={8} wrap="nowrap">
                  <TextInput
                    label={t('payment.promo.label')}
                    placeholder={t('payment.promo.placeholder')}
                    value={promoInput}
                    onChange={(e) => setPromoInput(e.currentTarget.value)}
                    error={promoError}
                    maxLength={40}
                    autoComplete="off"
                    size="sm"
                    style={{ flex: 1 }}
                  />
                  <Button type="submit" variant="default" size="sm" mt={25} loading={checking}>
                    {t('payment.promo.apply')}
                  </Button>
                </Group>
                {promo && prices.data?.promo && plan && (
                  <Text size="sm" c={promoFitsPlan ? 'teal.7' : 'dimmed'} mt={6} role="status" data-testid="promo-status">
                    {promoFitsPlan
                      ? t('payment.promo.applied', { code: prices.data.promo.code, percent: prices.data.promo.percentOff })
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
                      {t('plans.special.youSave', { amount: formatMoney(quote.listAmount - quote.amount, quote.currency, lang) })}
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
            <Button size="md" fullWidth leftSection={<IconLock size={18} />} onClick={() => void onPay()} loading={busy} disabled={!plan || !method} data-testid="pay-button">
              {offer && quote
                ? t('checkout.pay', { price: formatMoney(quote.amount, quote.currency, lang) })
                : plan && !offer
                  ? t('checkout.pay', { price: formatMoney(plan.amount, plan.currency, lang) })
                  : t('checkout.payNoPrice')}
            </Button>
            {payError && (
              <Alert color="red" variant="light" role="alert">
                {payError}
              </Alert>
            )}
            <MoneyBack compact />
            <TrustLine />
          </Stack>
        </div>
      </Card>
    </Stack>
  );
}
