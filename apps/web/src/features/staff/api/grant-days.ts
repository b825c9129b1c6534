import { staffApi } from './client';
import { useCustomerMutation } from './customer-mutation';

export type GrantDaysVars = { customerId: string; days: number; reason: string };

/** POST staff/customers/:id/grant {days, reason}: adds days to the plan (or starts one). Its refusal is shown in the dialog that asked (no snackbar). */
export async function grantDays({ customerId, ...body }: GrantDaysVars): Promise<void> {
  await staffApi.post(`customers/${encodeURIComponent(customerId)}/grant`, { json: body, context: { silent: true } });
}

export function useGrantDays() {
  return useCustomerMutation(grantDays);
}
