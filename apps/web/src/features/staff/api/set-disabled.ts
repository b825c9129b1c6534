import { staffApi } from './client';
import { useCustomerMutation } from './customer-mutation';

export type SetDisabledVars = { customerId: string; disabled: boolean; reason: string };

/** POST staff/customers/:id/disabled {disabled, reason}: turns the account off or on again (admin). Its refusal is shown in the dialog that asked (no snackbar). */
export async function setDisabled({ customerId, ...body }: SetDisabledVars): Promise<void> {
  await staffApi.post(`customers/${encodeURIComponent(customerId)}/disabled`, { json: body, context: { silent: true } });
}

export function useSetDisabled() {
  return useCustomerMutation(setDisabled);
}
