import { useEffect } from 'react';
import { Alert, Badge, Card, Group, List, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import '@mantine/core/styles/Badge.layer.css';
import '@mantine/core/styles/List.layer.css';
import '@mantine/core/styles/ThemeIcon.layer.css';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { FREE_TARIFF_KEY, MONEY_BACK_DAYS, isActivated } from '@warren/contract';
import { verifyUser } from '../../../lib/account-api';
import { getBrand } from '../../../lib/brand';
import { snackbar } from '../../../lib/notify';
import { planDisplayName } from '../../../lib/plan';
import { refreshUser, session, useSession } from '../../../lib/session';
import { IconCheck, IconCrown } from '../../../components/icons';
import { ConfirmEmailAlert } from '../../../components/billing/ConfirmEmailAlert';
import { PlanCheckout } from '../components/PlanCheckout';

const PREMIUM = ['allLocations', 'protocols', 'adBlocker', 'noLogs'] as const;

const handledLinks = new Set<string>();

export function PlansPage() {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const { selectedPlan } = useParams();
  const [params, setParams] = useSearchParams();
  const user = useSession((s) => s.user);
  const isFree = !user || user.subscriptionData.tariffKey === FREE_TARIFF_KEY;
  const expiresAt = user?.subscriptionData.expiresAt ? new Date(user.subscriptionData.expiresAt) : null;
  const expires = expiresAt && !Number.isNaN(expiresAt.getTime()) ? expiresAt : null;
  const brand = getBrand();
  // Payment-first brands (spec section 6): access comes with the payment, not the email.
  const paymentFirstPending = brand.paymentFirst && !!user && !isActivated(user, true);

  // Email verification link opened while logged in: /plans?userId=X&token=Y.
  useEffect(() => {
    const userId = params.get('userId');
    const token = params.get('token');
    if (!userId || !token) return;
    const key = `${userId}:${token}`;
    if (handledLinks.has(key)) return;
    handledLinks.add(key);
    verifyUser({ userId: Number(userId), token })
      .then(async () => {
        try {
          await refreshUser();
        } catch {
          const u = session.get().user;
          if (u) session.setUser({ ...u, verified: 1 });
        }
        snackbar(t('plans.verifyOk'), { kind: 'success' });
        navigate('/dashboard', { replace: true });
      })
      .catch(() => {
        snackbar(t('plans.verifyFailed'));
        setParams({}, { replace: true });
      });
  }, [params, navigate, setParams, t]);

  return (
    <Stack gap="lg">
      {user?.verified === 0 && !brand.paymentFirst && (
        <ConfirmEmailAlert
          textTestId="confirm-text"
          text={
            // A buyer who paid before confirming: the plan waits for the email, by name.
            isFree
              ? t('plans.confirmText', { email: user.email })
              : t('plans.paidConfirmText', {
                  plan: planDisplayName(t, user.subscriptionData.tariffKey, user.subscriptionData.tariffName),
                  email: user.email,
                })
          }
        />
      )}
      {paymentFirstPending && (
        <Alert
          color="brand"
          variant="light"
          icon={<IconCrown size={20} />}
          title={t('plans.paymentFirstTitle')}
          data-testid="payment-first"
        >
          {t('guard.paymentFirst')}
        </Alert>
      )}
      <Card withBorder padding="xl" radius="lg">
        <Group justify="space-between" align="flex-start" gap="lg" wrap="wrap">
          <Stack gap={6} maw={620}>
            <Group gap="sm">
              {isFree && (
                <ThemeIcon variant="light" radius="md" size={34}>
                  <IconCrown size={20} />
                </ThemeIcon>
              )}
              <Title order={2} fz={22}>
                {isFree ? t('plans.upgradeTitle') : t('plans.paidTitle')}
              </Title>
              {selectedPlan && <Badge variant="light">{selectedPlan}</Badge>}
            </Group>
            <Text c="dimmed">{isFree ? t('plans.upgradeText', { days: MONEY_BACK_DAYS }) : t('plans.extendText')}</Text>
            {isFree && (
              <List spacing={4} size="sm" mt={4} icon={<IconCheck size={16} color="var(--mantine-color-brand-6)" />}>
                {PREMIUM.map((f) => (
                  <List.Item key={f}>{t(`checkout.features.${f}`)}</List.Item>
                ))}
              </List>
            )}
          </Stack>
          {user && (
            <Stack gap={2} data-testid="current-plan">
              <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
                {t('plans.current')}
              </Text>
              <Text fw={700}>
                {planDisplayName(t, user.subscriptionData.tariffKey, user.subscriptionData.tariffName)}
              </Text>
              {expires && (
                <Text size="sm" c="dimmed">
                  {t('dashboard.renews', { date: expires.toLocaleDateString(i18n.language) })}
                </Text>
              )}
            </Stack>
          )}
        </Group>
      </Card>
      <PlanCheckout selectedPlan={selectedPlan} />
    </Stack>
  );
}
