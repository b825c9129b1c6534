import { useEffect } from 'react';
import { Alert, Badge, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { verifyUser } from '../../../lib/account-api';
import { snackbar } from '../../../lib/notify';
import { refreshUser, session, useSession } from '../../../lib/session';
import { IconMail } from '../../../components/icons';
import { useResendVerification } from '../api/resend-verification';

const handledLinks = new Set<string>();

export function PlansPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { selectedPlan } = useParams();
  const [params, setParams] = useSearchParams();
  const user = useSession((s) => s.user);
  const resend = useResendVerification();

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

  const onResend = async () => {
    try {
      const res = await resend.mutateAsync();
      snackbar(res.message || t('plans.resent'), { kind: 'success' });
    } catch {
      /* the api client already showed the error */
    }
  };

  return (
    <Stack gap="lg">
      {user?.verified === 0 && (
        <Alert color="yellow" variant="light" icon={<IconMail size={20} />} title={t('plans.confirmTitle')}>
          <Stack gap="sm" align="flex-start">
            <Text size="sm">{t('plans.confirmText', { email: user.email })}</Text>
            <Button size="sm" variant="white" color="dark" onClick={() => void onResend()} loading={resend.isPending}>
              {t('plans.resend')}
            </Button>
          </Stack>
        </Alert>
      )}
      <Card withBorder padding="xl">
        <Stack gap="xs">
          <Group gap="sm">
            <Title order={2} fz={22}>
              {t('plans.heading')}
            </Title>
            {selectedPlan && <Badge variant="light">{selectedPlan}</Badge>}
          </Group>
          {user && (
            <Text c="dimmed">
              {t('plans.current')} <b>{user.subscriptionData.tariffName}</b>
            </Text>
          )}
          <Text c="dimmed" size="sm">
            {t('plans.soon')}
          </Text>
        </Stack>
      </Card>
    </Stack>
  );
}
