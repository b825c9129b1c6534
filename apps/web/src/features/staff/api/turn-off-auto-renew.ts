import { staffApi } from './client';
import { useCustomerMutation } from './customer-mutation';

export type TurnOffAutoRenewVars = { customerId: string };

/** POST staff/customers/:id/auto-renew/off: no more renewals; the paid period stays. */
export async function turnOffAutoRenew({ customerId, ...body }: TurnOffAutoRenewVars): Promise<void> {
  await staffApi.post(`customers/${encodeURIComponent(customerId)}/auto-renew/off`, { json: body });
}

export function useTurnOffAutoRenew() {
  return useCustomerMutation(turnOffAutoRenew);
}
