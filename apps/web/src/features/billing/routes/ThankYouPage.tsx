import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { MONEY_BACK_DAYS, isActivated } from '@warren/contract';
import { MoneyBack } from '../../../components/billing/MoneyBack';
import { IconCheck, IconTools } from '../../../components/icons';
import { ConfirmEmailAlert } from '../../../components/billing/ConfirmEmailAlert';
import { getBrand } from '../../../lib/brand';
import { CONFIRM_POLL_MS, CONFIRM_TIMEOUT_MS, confirmState } from '../../../lib/billing/confirm';
import { planInfoQuery } from '../../../lib/billing/plan-info';
import { planDisplayName } from '../../../lib/plan';
import { refreshUser, session, useSession } from '../../../lib/session';
import { STORAGE_KEYS, storage } from '../../../lib/storage';
import classes from './billing-pages.module.css';

/**
 * /thank-you (guarded: login, stored tariffName, no failed status): the plan, its expiry and
 * the money-back note; refreshes the user so the dashboard shows the new plan at once. While the
 * provider's confirmation is late it says "Confirming your payment…", for at most
 * CONFIRM_TIMEOUT_MS (stated on the page); then it says what happened and how to go on.
 */
export function ThankYouPage() {
  const { t, i18n } = useTranslation();
  const user = useSession((s) => s.user);
  const [deadline, setDeadline] = useState(() => Date.now() + CONFIRM_TIMEOUT_MS);
  const [now, setNow] = useState(() => Date.now());
  // A provider may notify a little after the browser comes back: ask again while waiting.
  const info = useQuery({
    ...planInfoQuery(user?.subscriptionData.tariffName),
    staleTime: 0,
    refetchInterval: (q) => (confirmState(q.state.data, Date.now(), deadline) === 'waiting' ? CONFIRM_POLL_MS : false),
  });
  const state = confirmState(info.data, now, deadline);

  // The deadline ends the wait even if no answer comes at all (offline, a hung request).
  useEffect(() => {
    const id = window.setTimeout(() => setNow(Date.now()), Math.max(0, deadline - Date.now()));
    return () => window.clearTimeout(id);
  }, [deadline]);

  useEffect(() => {
    void refreshUser().catch(() => null);
  }, []);

  useEffect(() => {
    if (!info.data) return;
    // Only a buyer without access yet waits on the payment; anyone else keeps every page (spec section 4 guard).
    const u = session.get().user;
    const waitsForAccess = state === 'waiting' && !!u && !isActivated(u, getBrand().paymentFirst);
    session.setPaymentStatus(waitsForAccess ? 'processing' : 'processed');
    // The payment went through: the user record (plan, status) changed with it.
    if (state === 'paid') void refreshUser().catch(() => null);
  }, [info.data, state]);

  const checkAgain = () => {
    setDeadline(Date.now() + CONFIRM_TIMEOUT_MS);
    setNow(Date.now());
    void info.refetch();
  };
  const waitTime = t('payment.thankYou.minutes', { count: Math.round(CONFIRM_TIMEOUT_MS / 60_000) });

  const plan = info.data ?? user?.subscriptionData;
  const planName = plan
    ? planDisplayName(t, plan.tariffKey, plan.tariffName)
    : (storage.get(STORAGE_KEYS.tariffName) ?? '');
  const expiresAt = info.data?.expiresAt ?? user?.subscriptionData.expiresAt ?? null;
  const expires = expiresAt ? new Date(expiresAt) : null;
  const moneyBackDays = info.data?.moneyBackDays ?? MONEY_BACK_DAYS;

  return (
    <div className={classes.wrap}>
      <Card withBorder shadow="sm" radius="lg" padding={0}>
        <div className={classes.hero}>
          {state === 'waiting' ? (
            <Stack align="center" gap="sm" py="xl" role="status" data-testid="confirming">
              <Loader />
              <Title order={2} fz={22}>
                {t('payment.thankYou.processingTitle')}
              </Title>
              <Text c="dimmed">{t('payment.thankYou.waitText', { time: waitTime })}</Text>
            </Stack>
          ) : state === 'timeout' || state === 'failed' ? (
            <Stack
              align="center"
              gap="sm"
              py="lg"
              role="alert"
              data-testid={state === 'timeout' ? 'confirm-timeout' : 'confirm-failed'}
            >
              <span className={classes.iconFail} aria-hidden="true">
                <svg
                  width="36"
                  height="36"
                  viewBox="0 0 24 24"
                  fill="none"
                  stroke="currentColor"
                  strokeWidth="2.4"
                  strokeLinecap="round"
                >
                  {state === 'timeout' ? (
                    <>
                      <circle cx="12" cy="12" r="8.5" />
                      <path d="M12 7.5V12l3 2" />
                    </>
                  ) : (
                    <path d="M7 7l10 10M17 7L7 17" />
                  )}
                </svg>
              </span>
              <Title order={2} className={classes.title}>
                {t(state === 'timeout' ? 'payment.thankYou.timeoutTitle' : 'payment.thankYou.failedTitle')}
              </Title>
              <Text c="dimmed" maw={520}>
                {state === 'timeout'
                  ? t('payment.thankYou.timeoutText', { time: waitTime })
                  : t('payment.thankYou.failedText')}
              </Text>
              <Group justify="center" gap="sm" mt="sm">
                <Button component={Link} to="/plans" size="md" data-testid="try-again">
                  {t('payment.thankYou.tryAgain')}
                </Button>
                {state === 'timeout' && (
                  <Button size="md" variant="default" onClick={checkAgain} data-testid="check-again">
                    {t('payment.thankYou.checkAgain')}
                  </Button>
                )}
              </Group>
            </Stack>
          ) : (
            <>
              <span className={classes.iconOk}>
                <IconCheck size={38} strokeWidth={2.4} />
              </span>
              <Title order={2} className={classes.title}>
                {t('payment.thankYou.title')}
              </Title>
              <Text c="dimmed" mt={6}>
                {t('payment.thankYou.text')}
              </Text>
              <div className={classes.facts}>
                <div className={classes.fact}>
                  <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
                    {t('dashboard.plan')}
                  </Text>
                  <Text fw={700} size="lg" data-testid="thank-you-plan">
                    {planName}
                  </Text>
                </div>
                <div className={classes.fact}>
                  <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
                    {t('payment.thankYou.validUntil')}
                  </Text>
                  <Text fw={700} size="lg" data-testid="thank-you-expiry">
                    {expires && !Number.isNaN(expires.getTime())
                      ? expires.toLocaleDateString(i18n.language, { year: 'numeric', month: 'long', day: 'numeric' })
                      : t('payment.thankYou.noExpiry')}
                  </Text>
                </div>
              </div>
            </>
          )}
          {user?.verified === 0 && (
            <ConfirmEmailAlert
              mt="lg"
              ta="left"
              data-testid="confirm-email"
              text={
                state === 'paid'
                  ? t('payment.thankYou.paidConfirmEmail', { plan: planName, email: user.email })
                  : t('payment.thankYou.confirmEmail', { email: user.email })
              }
            />
          )}
          {state === 'paid' && (
            <Group justify="center" gap="sm" className={classes.actions}>
              <Button component={Link} to="/setup" size="md" leftSection={<IconTools size={18} />}>
                {t('payment.thankYou.setup')}
              </Button>
              <Button component={Link} to="/dashboard" size="md" variant="default">
                {t('payment.thankYou.dashboard')}
              </Button>
            </Group>
          )}
        </div>
        {state === 'paid' && (
          <div style={{ padding: '0 24px 24px' }}>
            <MoneyBack days={moneyBackDays} />
            <Text size="xs" c="dimmed" ta="center" mt="sm">
              {t('payment.thankYou.receipt')}
            </Text>
          </div>
        )}
      </Card>
    </div>
  );
}
