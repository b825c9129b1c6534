import { useEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { MONEY_BACK_DAYS } from '@warren/contract';
import { MoneyBack } from '../../../components/billing/MoneyBack';
import { IconCheck, IconMail, IconTools } from '../../../components/icons';
import { planInfoQuery } from '../../../lib/billing/plan-info';
import { snackbar } from '../../../lib/notify';
import { planDisplayName } from '../../../lib/plan';
import { useResendVerification } from '../../../lib/resend-verification';
import { refreshUser, session, useSession } from '../../../lib/session';
import { STORAGE_KEYS, storage } from '../../../lib/storage';
import classes from './billing-pages.module.css';

/** How often the page asks again while a provider notification is late (up to 60 times). */
const POLL_MS = 3000;

/**
 * /thank-you (guarded: login, stored tariffName, no failed status): the plan, its expiry and
 * the money-back note; refreshes the user so the dashboard shows the new plan at once.
 */
export function ThankYouPage() {
  const { t, i18n } = useTranslation();
  const user = useSession((s) => s.user);
  // A provider may notify a little after the browser comes back: ask again while processing.
  const info = useQuery({
    ...planInfoQuery(user?.subscriptionData.tariffName),
    staleTime: 0,
    refetchInterval: (q) => (q.state.data?.paymentStatus === 'processing' && q.state.dataUpdateCount < 60 ? POLL_MS : false),
  });
  const resend = useResendVerification();

  useEffect(() => {
    void refreshUser().catch(() => null);
  }, []);

  const processing = info.data?.paymentStatus === 'processing';
  useEffect(() => {
    if (!info.data) return;
    session.setPaymentStatus(info.data.paymentStatus);
    // The payment went through: the user record (plan, status) changed with it.
    if (info.data.paymentStatus === 'processed') void refreshUser().catch(() => null);
  }, [info.data]);

  const plan = info.data ?? user?.subscriptionData;
  const planName = plan ? planDisplayName(t, plan.tariffKey, plan.tariffName) : (storage.get(STORAGE_KEYS.tariffName) ?? '');
  const expiresAt = info.data?.expiresAt ?? user?.subscriptionData.expiresAt ?? null;
  const expires = expiresAt ? new Date(expiresAt) : null;
  const moneyBackDays = info.data?.moneyBackDays ?? MONEY_BACK_DAYS;

  const onResend = async () => {
    try {
      const res = await resend.mutateAsync();
      snackbar(res.message || t('plans.resent'), { kind: 'success' });
    } catch {
      /* the api client showed the error */
    }
  };

  return (
    <div className={classes.wrap}>
      <Card withBorder shadow="sm" radius="lg" padding={0}>
        <div className={classes.hero}>
          {processing ? (
            <Stack align="center" gap="sm" py="xl" role="status">
              <Loader />
              <Title order={2} fz={22}>
                {t('payment.thankYou.processingTitle')}
              </Title>
              <Text c="dimmed">{t('payment.thankYou.processingText')}</Text>
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
            <Alert color="yellow" variant="light" icon={<IconMail size={20} />} title={t('plans.confirmTitle')} mt="lg" ta="left">
              <Stack gap="sm" align="flex-start">
                <Text size="sm">{t('payment.thankYou.confirmEmail', { email: user.email })}</Text>
                <Button size="sm" variant="white" color="dark" onClick={() => void onResend()} loading={resend.isPending}>
                  {t('plans.resend')}
                </Button>
              </Stack>
            </Alert>
          )}
          <Group justify="center" gap="sm" className={classes.actions}>
            <Button component={Link} to="/setup" size="md" leftSection={<IconTools size={18} />}>
              {t('payment.thankYou.setup')}
            </Button>
            <Button component={Link} to="/dashboard" size="md" variant="default">
              {t('payment.thankYou.dashboard')}
            </Button>
          </Group>
        </div>
        <div style={{ padding: '0 24px 24px' }}>
          <MoneyBack days={moneyBackDays} />
          <Text size="xs" c="dimmed" ta="center" mt="sm">
            {t('payment.thankYou.receipt')}
          </Text>
        </div>
      </Card>
    </div>
  );
}
