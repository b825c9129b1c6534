import { Alert, Stack } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { QueryState } from '../../../components/QueryState';
import { useConfirmPaymentMethod } from '../api/confirm-payment-method';
import { useSubscription } from '../api/get-subscription';
import { errorBodyOf, errorText } from '../../../lib/http-error';
import { snackbar } from '../../../lib/notify';
import { BillingAddressCard } from '../components/BillingAddressCard';
import { PaymentHistoryCard } from '../components/PaymentHistoryCard';
import { SubscriptionCard } from '../components/SubscriptionCard';
import { SwitchPlanCard } from '../components/SwitchPlanCard';

/** /subscription: the plan and its renewal, then every payment with its receipt and the money-back request. */
export function SubscriptionPage() {
  const { t } = useTranslation();
  const subscription = useSubscription();
  // Back from the provider's page after paying for a switch (issue 23).
  const [params] = useSearchParams();
  const back = params.get('switch') === 'done';
  const backFailed = back && params.get('redirect_status') === 'failed';
  // Back from the provider's card update: the new card replaces the saved one once the provider confirms it.
  const confirm = useConfirmPaymentMethod();
  const confirmed = useRef(false);
  const methodBack = params.get('method') === 'updated';
  useEffect(() => {
    if (!methodBack || confirmed.current) return;
    confirmed.current = true;
    confirm.mutate(undefined, {
      onSuccess: () => snackbar(t('subscription.method.updated'), { kind: 'success' }),
      onError: (err) => snackbar(errorText(errorBodyOf(err), t('subscription.method.failed')), { kind: 'error' }),
    });
  }, [methodBack, confirm, t]);
  return (
    <Stack gap="lg" maw={960}>
      {back && (
        <Alert color={backFailed ? 'yellow' : 'teal'} variant="light" data-testid="switch-back">
          {t(backFailed ? 'subscription.switch.backFailed' : 'subscription.switch.back')}
        </Alert>
      )}
      <QueryState query={subscription} loading={t('subscription.loading')} error={t('subscription.loadFailed')}>
        {(info) => (
          <>
            <SubscriptionCard info={info} />
            <SwitchPlanCard info={info} />
          </>
        )}
      </QueryState>
      <PaymentHistoryCard />
      <BillingAddressCard />
    </Stack>
  );
}
