import { useMutation, useQueryClient } from '@tanstack/react-query';
import { envelope, switchPlanResult, type SwitchPlanBody, type SwitchPlanResult } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { subscriptionQuery } from './get-subscription';
import { switchOptionsQuery } from './get-switch-options';

/**
 * POST billing/subscription/switch: a longer period answers a checkout (the browser goes to the
 * provider's page), a shorter one the subscription with the change scheduled.
 */
export async function switchPlan(body: SwitchPlanBody): Promise<SwitchPlanResult> {
  return envelope(switchPlanResult).parse(await api.post('billing/subscription/switch', { json: body }).json()).data;
}

export function useSwitchPlan() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: switchPlan,
    onSuccess: (result) => {
      if (result.kind === 'scheduled') qc.setQueryData(subscriptionQuery.queryKey, result.subscription);
      void qc.invalidateQueries({ queryKey: switchOptionsQuery.queryKey });
    },
    onError: () => {
      void qc.invalidateQueries({ queryKey: subscriptionQuery.queryKey });
      void qc.invalidateQueries({ queryKey: switchOptionsQuery.queryKey });
    },
  });
}
