import { Alert, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { QueryState } from '../../../components/QueryState';
import { useSubscription } from '../api/get-subscription';
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
  return (
    <Stack gap="lg" maw={960}>
      {back && (
        <Alert color="teal" variant="light" data-testid="switch-back">
          {t('subscription.switch.back')}
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
    </Stack>
  );
}
