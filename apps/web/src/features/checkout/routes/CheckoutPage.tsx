import { useCallback, useEffect, useImperativeHandle, useRef, useState, type ReactNode, type Ref } from 'react';
import { Alert, Anchor, Button, Card, Group, PasswordInput, Skeleton, Stack, Text, Title } from '@mantine/core';
import '@mantine/core/styles/PasswordInput.layer.css';
import '@mantine/core/styles/Skeleton.layer.css';
import { useForm } from 'react-hook-form';
import { Link, useLoaderData, useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { PASSWORD_MIN, SNACKBAR_MS, checkoutAfterDiscount, type Language } from '@warren/contract';
import { Logo } from '../../../components/Logo';
import { LanguageSwitcher } from '../../../components/LanguageSwitcher';
import { IconCheck, IconLock } from '../../../components/icons';
import { EmailInput } from '../../../components/EmailInput';
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
import { collectAttribution, loginAttribution } from '../../../lib/attribution';
import { getBrand } from '../../../lib/brand';
import { checkoutVariant, serverOffer } from '../../../lib/billing/discount';
import { useCheckout } from '../../../lib/billing/checkout-state';
import { formatMoney } from '../../../lib/billing/format';
import { usePaymentSuccessMessage } from '../../../lib/billing/payment-success-message';
import { applyFieldErrors } from '../../../lib/forms';
import { lazyResolver } from '../../../lib/lazy-resolver';
import { capitalizeFirst, errorBodyOf, errorText } from '../../../lib/http-error';
import { snackbar } from '../../../lib/notify';
import { session, useSession } from '../../../lib/session';
import { STORAGE_KEYS, storage } from '../../../lib/storage';
import { translateValidation } from '../../../lib/validation';
import { isEmailTaken, useRegisterOneStep } from '../api/register-one-step';
import { useCheckoutLogin } from '../api/login';
import { DiscountCountdown } from '../components/DiscountCountdown';
import type { CheckoutLoaderData } from '../loader';
import classes from './CheckoutPage.module.css';
import { captchaErrorText, useCaptcha, type Captcha } from '../../../lib/captcha';
import { HydratedFieldset } from '../../../components/HydratedFieldset';

// The account form's rules load on its first validation (zod stays off the first screen).
const signUpResolver = lazyResolver(() => import('../form-resolvers').then((m) => m.signUpResolver));
const signInResolver = lazyResolver(() => import('../form-resolvers').then((m) => m.signInResolver));
interface AccountValues {
  email: string;
  password: string;
}
type Mode = 'signUp' | 'signIn';

const FEATURES = ['allLocations', 'protocols', 'adBlocker', 'noLogs'] as const;

/** One numbered step of the checkout: its number, its title (which names the section) and a control beside it. */
function Step({
  no,
  id,
  title,
  aside,
  children,
}: {
  no: number;
  id: string;
  title: string;
  aside?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section className={classes.step} aria-labelledby={id}>
      <div className={classes.stepHead}>
        <span className={classes.stepNo}>{no}</span>
        <Text id={id} className={classes.stepTitle}>
          {title}
        </Text>
        {aside && (
          <>
            <div style={{ flex: 1 }} />
            {aside}
          </>
        )}
      </div>
      {children}
    </section>
  );
}

/** What the checkout asks of its account step when Pay is pressed. */
interface AccountHandle {
  /** Signs up (one step) or in with what was typed; false (field errors shown) if it did not. */
  ensureAccount: () => Promise<boolean>;
}

/**
 * The account step for a visitor without a session: one-step sign-up, or sign-in when the email
 * has an account. Its own component: react-hook-form re-renders the component that holds the form
 * once, synchronously, right after mounting (isReady); here that is this form, not the whole
 * checkout in one long task while the page is taken over. Server-rendered (entry-server.tsx):
 * nothing to type into until the app's handlers are attached (HydratedFieldset).
 */
function AccountForm({
  ref,
  onSubmit,
  language,
  captcha,
}: {
  ref: Ref<AccountHandle>;
  onSubmit: () => void;
  language: Language | undefined;
  captcha: Captcha;
}) {
  const { t } = useTranslation();
  const [mode, setMode] = useState<Mode>('signUp');
  const [takenEmail, setTakenEmail] = useState<string | null>(null);
  const form = useForm<AccountValues>({
    resolver: mode === 'signUp' ? signUpResolver : signInResolver,
    defaultValues: { email: '', password: '' },
    mode: 'onTouched',
  });
  const registerMutation = useRegisterOneStep();
  const loginMutation = useCheckoutLogin();

  const ensureAccount = async (): Promise<boolean> => {
    let ok = false;
    await form.handleSubmit(async (values) => {
      try {
        if (mode === 'signUp') {
          const result = await registerMutation.mutateAsync({
            ...collectAttribution(),
            email: values.email,
            password: values.password,
            password_confirmation: values.password,
            isOneStepPayment: true,
            language,
            langCode: language,
            'g-recaptcha-response': await captcha.take(),
          });
          session.signedIn(result);
        } else {
          const result = await loginMutation.mutateAsync({
            email: values.email,
            password: values.password,
            ...loginAttribution(),
            'g-recaptcha-response': await captcha.take(),
          });
          session.signedIn(result);
        }
        ok = true;
      } catch (err) {
        const captchaText = captchaErrorText(err, t);
        if (captchaText) {
          snackbar(captchaText, { ms: SNACKBAR_MS.signUpError });
          return;
        }
        const body = errorBodyOf(err);
        if (mode === 'signUp' && isEmailTaken(body?.errors)) {
          setTakenEmail(values.email);
          setMode('signIn');
          form.setValue('password', '');
          form.clearErrors();
          return;
        }
        const rest = applyFieldErrors(body, form.setError, ['email', 'password'] as const);
        if (rest.length || !body?.errors) {
          snackbar(
            capitalizeFirst(errorText(body, t(mode === 'signUp' ? 'auth.signUp.failed' : 'checkout.signInFailed'))),
            { ms: SNACKBAR_MS.signUpError },
          );
        }
      }
    })();
    return ok;
  };

  useImperativeHandle(ref, () => ({ ensureAccount }));

  const fieldError = (name: keyof AccountValues) => translateValidation(form.formState.errors[name]?.message, t);
  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      <HydratedFieldset className={classes.fieldset}>
        <Stack gap="sm" mt="xs">
          {mode === 'signIn' ? (
            <Alert color="brand" variant="light" data-testid="existing-account">
              <Text size="sm">{t('checkout.existingAccount', { email: takenEmail ?? '' })}</Text>
              <Anchor component="button" type="button" size="sm" mt={4} onClick={() => setMode('signUp')}>
                {t('checkout.useAnotherEmail')}
              </Anchor>
            </Alert>
          ) : (
            <Text size="sm" c="dimmed">
              {t('checkout.accountHint')}
            </Text>
          )}
          <EmailInput withAsterisk error={fieldError('email')} {...form.register('email')} />
          <PasswordInput
            label={t('auth.fields.password')}
            description={mode === 'signUp' ? t('auth.signUp.passwordHint', { min: PASSWORD_MIN }) : undefined}
            autoComplete={mode === 'signUp' ? 'new-password' : 'current-password'}
            withAsterisk
            error={fieldError('password')}
            visibilityToggleButtonProps={{ 'aria-label': t('auth.fields.togglePassword') }}
            {...form.register('password')}
          />
          {mode === 'signIn' && (
            <Anchor component={Link} to="/forgot-pass" size="sm">
              {t('checkout.forgot')}
            </Anchor>
          )}
          <button type="submit" hidden aria-hidden="true" tabIndex={-1} />
        </Stack>
      </HydratedFieldset>
    </form>
  );
}

/**
 * Every checkout variant (spec section 2): plans of the variant's price list, then the account
 * (one-step sign-up, or sign-in for an existing email), then the payment method; Pay creates the
 * payment and sends the browser to the provider's page.
 */
export function CheckoutPage() {
  const { t, i18n } = useTranslation();
  const { pathname, search } = useLocation();
  const navigate = useNavigate();
  const loaderData = useLoaderData() as CheckoutLoaderData | undefined;
  const variant = checkoutVariant(pathname);
  const brand = getBrand();
  const user = useSession((s) => (s.authenticated ? s.user : null));
  usePaymentSuccessMessage();
  // One widget for the page: the one-step sign-up (or sign-in) and the payment each take a token from it.
  const captcha = useCaptcha();

  // The variant's language, unless the visitor chose one.
  useEffect(() => {
    if (variant.language && !storage.get(STORAGE_KEYS.i18nLang) && i18n.language !== variant.language) {
      void i18n.changeLanguage(variant.language);
    }
  }, [variant.language, i18n]);

  const checkout = useCheckout({
    currency: variant.currency ?? undefined,
    selectedPlan: variant.priceList !== 'default' ? variant.priceList : undefined,
    tariffIds: variant.tariffIds,
    referralID: storage.get(STORAGE_KEYS.referralID) ?? undefined,
    accountId: user?.id ?? null,
    captcha,
  });
  const { prices, plans, chosenId, plan, setTariffId, busy, language } = checkout;

  const account = useRef<AccountHandle>(null);

  const discountPercent = Number(/discount-(\d+)/.exec(variant.priceList)?.[1] ?? 0);
  // The discount window is the server's: its answer says how long is left, or that it is over.
  const offer = serverOffer(variant, prices.data, prices.dataUpdatedAt);
  const discountEndsAtMs =
    offer.kind === 'open' ? offer.endsAtMs : offer.kind === 'none' ? (loaderData?.discountEndsAtMs ?? null) : null;
  // Spec section 2: after the window the visitor is sent to the regular checkout, in the variant's language.
  const afterDiscount = checkoutAfterDiscount(variant);
  const endDiscount = useCallback(() => {
    if (!variant.discountCookie) return;
    snackbar(t('checkout.discountEnded'), { kind: 'info', ms: SNACKBAR_MS.paymentProcessing });
    navigate(`${afterDiscount}${search}`, { replace: true });
  }, [variant.discountCookie, afterDiscount, navigate, search, t]);
  useEffect(() => {
    if (offer.kind === 'closed') endDiscount();
  }, [offer.kind, endDiscount]);

  // Signed in: nothing to create. Otherwise the account step signs up or in first.
  const onPay = () => checkout.pay(async () => (user ? true : (account.current?.ensureAccount() ?? false)));

  // The countdown is in the HTML (no shift when the app takes over); its clock ticks from the
  // browser's first render.
  const lang = i18n.language;

  return (
    <div className={classes.page}>
      {discountEndsAtMs ? (
        <DiscountCountdown endsAtMs={discountEndsAtMs} percent={discountPercent} onExpire={endDiscount} />
      ) : null}
      <header className={classes.top}>
        <Logo />
        <Group gap={8} wrap="nowrap">
          <LanguageSwitcher compact />
          {!user && (
            <Button component={Link} to="/sign-in" variant="default" size="compact-md" radius="md">
              {t('checkout.signInTop')}
            </Button>
          )}
        </Group>
      </header>

      <main className={classes.main}>
        <div className={classes.hero}>
          <Title order={1} className={classes.heroTitle}>
            {t('checkout.title')}
          </Title>
          <Text c="dimmed" mt={8}>
            {brand.paymentFirst ? t('checkout.subtitlePaymentFirst', { days: 7 }) : t('checkout.subtitle', { days: 7 })}
          </Text>
        </div>

        <div className={classes.layout}>
          <div className={classes.steps}>
            <Step
              no={1}
              id="step-plan"
              title={t('checkout.stepPlan')}
              aside={<CurrencySelect checkout={checkout} size="xs" width={92} />}
            >
              {prices.isPending && !prices.data ? (
                <Stack gap={10} pt={10}>
                  {variant.tariffIds.map((id) => (
                    <Skeleton key={id} h={96} radius="lg" />
                  ))}
                </Stack>
              ) : prices.isError ? (
                <PricesFailed checkout={checkout} mt="sm" />
              ) : (
                <PlanOptions
                  plans={plans}
                  value={chosenId}
                  onChange={setTariffId}
                  layout="list"
                  label={t('checkout.stepPlan')}
                />
              )}
            </Step>

            <Step no={2} id="step-account" title={user ? t('checkout.stepAccountSignedIn') : t('checkout.stepAccount')}>
              {user ? (
                <Group justify="space-between" wrap="wrap" gap="xs" mt="xs">
                  <Group gap={8} wrap="nowrap" miw={0}>
                    <IconCheck size={18} color="var(--mantine-color-teal-6)" />
                    <Text size="sm" truncate>
                      {t('checkout.signedInAs')} <b data-testid="checkout-user">{user.email}</b>
                    </Text>
                  </Group>
                  <Anchor component="button" size="sm" onClick={() => void session.signOut({ navigate: false })}>
                    {t('checkout.notYou')}
                  </Anchor>
                </Group>
              ) : (
                <AccountForm ref={account} onSubmit={() => void onPay()} language={language} captcha={captcha} />
              )}
            </Step>

            <Step no={3} id="step-method" title={t('checkout.stepMethod')}>
              <div style={{ paddingTop: 10 }}>
                <MethodChoice checkout={checkout} />
              </div>
            </Step>
          </div>

          <aside className={classes.summary} aria-label={t('checkout.summary')}>
            <Card withBorder shadow="md" padding="lg" radius="lg">
              <Stack gap="md">
                <Text fw={700} size="lg">
                  {t('checkout.summary')}
                </Text>
                {plan ? (
                  <Stack gap={8}>
                    <div className={classes.summaryRow}>
                      <span>{t('checkout.summaryPlan', { plan: planName(t, plan) })}</span>
                      <span>{formatMoney(plan.listAmount, plan.currency, lang)}</span>
                    </div>
                    {plan.listAmount > plan.amount && (
                      <div className={classes.summaryRow} style={{ color: 'var(--mantine-color-teal-text)' }}>
                        <span>{t('checkout.discount', { percent: plan.discountPercent })}</span>
                        <span>−{formatMoney(plan.listAmount - plan.amount, plan.currency, lang)}</span>
                      </div>
                    )}
                    <div className={classes.total}>
                      <span>{t('checkout.total')}</span>
                      <span data-testid="checkout-total">{formatMoney(plan.amount, plan.currency, lang)}</span>
                    </div>
                    <Text size="xs" c="dimmed">
                      {billedText(t, plan, lang)}
                    </Text>
                  </Stack>
                ) : (
                  <Skeleton h={80} />
                )}
                <AutoRenewChoice checkout={checkout} />
                {captcha.element}
                <Button
                  size="lg"
                  fullWidth
                  leftSection={<IconLock size={18} />}
                  onClick={() => void onPay()}
                  loading={busy}
                  disabled={!plan || !checkout.method}
                  data-testid="pay-button"
                >
                  {plan
                    ? t('checkout.pay', { price: formatMoney(plan.amount, plan.currency, lang) })
                    : t('checkout.payNoPrice')}
                </Button>
                <PayError checkout={checkout} />
                <MoneyBack />
                <div className={classes.features}>
                  {FEATURES.map((f) => (
                    <Group key={f} gap={6} wrap="nowrap" align="flex-start">
                      <IconCheck
                        size={16}
                        color="var(--mantine-color-brand-6)"
                        style={{ flex: 'none', marginTop: 2 }}
                      />
                      <Text size="xs">{t(`checkout.features.${f}`)}</Text>
                    </Group>
                  ))}
                </div>
                <TrustLine cancelAnytime={checkout.autoRenew} />
              </Stack>
            </Card>
          </aside>
        </div>
      </main>
      <footer className={classes.footer}>
        <Text size="xs" c="dimmed">
          © {new Date().getFullYear()} {brand.productName}
        </Text>
        <Anchor size="xs" c="dimmed" href={brand.helpCenterUrl} target="_blank" rel="noopener noreferrer">
          {t('auth.help')}
        </Anchor>
      </footer>
    </div>
  );
}
