import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { PaymentProviderId, PublicBrand, TariffPrice } from '@warren/contract';
import { getBrand } from '../brand';
import type { Captcha } from '../captcha';
import { errorBodyOf, errorText } from '../http-error';
import { isLanguage } from '../i18n';
import { useCurrencies } from './currencies';
import { defaultPlanId, orderPlans } from './format';
import { getGuestPriceData } from './guest-price-data';
import { useIpInfo } from './ip-info';
import { useLandingPriceList } from './landing-price-list';
import { usePay } from './payment-flow';
import { methodId, usePaymentMethods, type PaymentMethod } from './payment-methods';

/** Providers that can charge a saved method again (issue 13): Stripe, Payssion v2 mandates, the sandbox's test card. */
const RENEWING_PROVIDERS: ReadonlySet<PaymentProviderId> = new Set(['stripe', 'payssionv2', 'sandbox']);

/**
 * Whether this purchase can renew: a provider that charges again, and a plan with a period
 * (lifetime plans never renew). Cardlink and Payssion v1 are one-off payments.
 */
export function canRenew(
  plan: Pick<TariffPrice, 'isLifetime'> | null,
  method: Pick<PaymentMethod, 'provider'> | null,
): boolean {
  if (!method || !RENEWING_PROVIDERS.has(method.provider)) return false;
  return !plan?.isLifetime;
}

/** The brand's default for the renewal choice (brands.json autoRenewDefault); on when it does not say. */
export function autoRenewDefault(brand: Pick<PublicBrand, 'autoRenewDefault'>): boolean {
  return brand.autoRenewDefault ?? true;
}

/**
 * What one Pay attempt buys: while it stays the same, retries and double clicks reuse one
 * idempotency key. Every choice that changes the payment is part of it.
 */
export function checkoutAttempt(a: {
  tariffId: number | null;
  currency: string | null;
  method: PaymentMethod | null;
  promo?: string | null;
  priceList?: string;
  accountId?: number | null;
  autoRenew: boolean;
}): string {
  return [
    a.tariffId,
    a.currency,
    a.method ? methodId(a.method) : '',
    a.promo ?? '',
    a.priceList ?? '',
    a.accountId ?? '',
    a.autoRenew ? 'renew' : 'once',
  ].join('|');
}

export interface CheckoutOptions {
  /** The variant's currency (a landing checkout); without it, the visitor's country decides. */
  currency?: string;
  /** A landing price list (/plans/{selectedPlan}, /checkout variants). */
  selectedPlan?: string;
  /** Only these plans, in this order; else every paid plan. */
  tariffIds?: readonly number[];
  /** Sell at this price list whatever the landing list says (the special offer). */
  priceList?: string;
  referralID?: string;
  /** The buyer's account, when signed in: a different account is a different attempt. */
  accountId?: number | null;
  /** The page's captcha (useCaptcha): every payment takes a token of its own. */
  captcha?: Pick<Captcha, 'take'>;
}

/**
 * The one checkout state behind /checkout* and the plans pages: currency, prices, the chosen
 * plan and payment method, a promo code, the renewal choice, and Pay (one idempotency key per
 * attempt, the redirect to the provider, its error). Pages differ only in how they show it.
 */
export function useCheckout(opts: CheckoutOptions) {
  const { t, i18n } = useTranslation();
  const currencies = useCurrencies();
  const ip = useIpInfo(!opts.currency);
  const [currencyChoice, setCurrency] = useState<string | null>(null);
  const currency =
    currencyChoice ?? opts.currency ?? ip.data?.currency ?? currencies.data?.default ?? (ip.isError ? 'USD' : null);
  const currencyOptions = currencies.data?.currencies ?? (currency ? [currency] : []);

  const [promo, setPromo] = useState<string | null>(null);
  const prices = useLandingPriceList(
    {
      selectedPlan: opts.selectedPlan,
      currency: currency ?? undefined,
      promocode: promo ?? undefined,
      referralID: opts.referralID,
    },
    !!currency,
  );
  const plans = useMemo(() => orderPlans(prices.data?.plans ?? [], opts.tariffIds), [prices.data, opts.tariffIds]);
  const [tariffId, setTariffId] = useState<number | null>(null);
  const chosenId = tariffId ?? defaultPlanId(plans, opts.tariffIds);
  const plan: TariffPrice | null = plans.find((p) => p.tariffId === chosenId) ?? null;
  const priceList = opts.priceList ?? prices.data?.priceList;

  const methods = usePaymentMethods();
  const [methodChoice, setMethod] = useState<string | null>(null);
  const method = methods.data?.methods.find((m) => methodId(m) === methodChoice) ?? methods.data?.methods[0] ?? null;

  const renewable = canRenew(plan, method);
  const [renewChoice, setAutoRenew] = useState<boolean | null>(null);
  const autoRenew = renewable && (renewChoice ?? autoRenewDefault(getBrand()));

  const [promoError, setPromoError] = useState<string | null>(null);
  const [checkingPromo, setCheckingPromo] = useState(false);
  /** Checks a code against the chosen plan (the guest price answers its problem as a 422); an empty code removes it. */
  const applyPromo = async (input: string) => {
    const code = input.trim();
    setPromoError(null);
    if (!code) {
      setPromo(null);
      return;
    }
    if (!plan || !currency) return;
    setCheckingPromo(true);
    try {
      await getGuestPriceData({
        tariffId: plan.tariffId,
        currency,
        promocode: code,
        priceList: prices.data?.priceList,
      });
      setPromo(code.toUpperCase());
    } catch (err) {
      const body = errorBodyOf(err);
      setPromoError(body?.errors?.promocode?.join(' ') ?? errorText(body, t('payment.promo.invalid')));
    } finally {
      setCheckingPromo(false);
    }
  };

  const attempt = checkoutAttempt({
    tariffId: chosenId,
    currency,
    method,
    promo,
    priceList,
    accountId: opts.accountId,
    autoRenew,
  });
  const { pay, busy, error: payError } = usePay(attempt, opts.captcha);
  const language = isLanguage(i18n.resolvedLanguage) ? i18n.resolvedLanguage : undefined;

  /** Pay for the chosen plan; `prepare` runs first (the one-step checkout's sign-up) and may stop it. */
  const onPay = async (prepare?: () => Promise<boolean>) => {
    if (!plan || !method || !currency) return;
    // The code goes with the payment only for a plan it discounts (the server would refuse it for another).
    const promocode = promo && plan.promo ? promo : undefined;
    const ok = await pay(
      {
        tariffId: plan.tariffId,
        currency,
        provider: method.provider,
        type: method.type || undefined,
        priceList,
        promocode,
        language,
        autoRenew,
      },
      plan.name,
      prepare,
    );
    // Refused (a discount that has just ended, a price that changed): ask for the prices again.
    if (ok === false) void prices.refetch();
  };

  return {
    currency,
    currencyOptions,
    setCurrency,
    prices,
    plans,
    chosenId,
    plan,
    setTariffId,
    priceList,
    methods,
    method,
    setMethod,
    promo,
    promoError,
    checkingPromo,
    applyPromo,
    renewable,
    autoRenew,
    setAutoRenew,
    pay: onPay,
    busy,
    payError,
    language,
  };
}

export type CheckoutState = ReturnType<typeof useCheckout>;
