import { useEffect } from 'react';
import { Center, Loader, Stack, Text } from '@mantine/core';
import { useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { paymentReturnTarget } from '../../../lib/billing/payment-return';
import { refreshUser, session } from '../../../lib/session';

/**
 * zg/paymentEvent: the provider's return. succeeded → /thank-you (after a user refresh),
 * failed → /failed-payment, anything else → /plans. The payssionv2 host rule runs in its guard.
 */
export function PaymentEventPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const status = params.get('redirect_status');

  useEffect(() => {
    let live = true;
    const target = paymentReturnTarget(status);
    if (target !== '/thank-you') session.setPaymentStatus('processed');
    const go = () => live && navigate(target, { replace: true });
    if (target === '/thank-you')
      void refreshUser()
        .catch(() => null)
        .finally(go);
    else go();
    return () => {
      live = false;
    };
  }, [status, navigate]);

  return (
    <Center mih={280}>
      <Stack align="center" gap="sm" role="status">
        <Loader />
        <Text c="dimmed">{t('payment.returning')}</Text>
      </Stack>
    </Center>
  );
}
