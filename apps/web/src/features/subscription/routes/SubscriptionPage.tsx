import { Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { QueryState } from '../../../components/QueryState';
import { useSubscription } from '../api/get-subscription';
import { PaymentHistoryCard } from '../components/PaymentHistoryCard';
import { SubscriptionCard } from '../components/SubscriptionCard';

/** /subscription: the plan and its renewal, then every payment with its receipt and the money-back request. */
export function SubscriptionPage() {
  const { t } = useTranslation();
  const subscription = useSubscription();
  return (
    <Stack gap="lg" maw={960}>
      <QueryState query={subscription} loading={t('subscription.loading')} error={t('subscription.loadFailed')}>
        {(info) => <SubscriptionCard info={info} />}
      </QueryState>
      <PaymentHistoryCard />
    </Stack>
  );
}
