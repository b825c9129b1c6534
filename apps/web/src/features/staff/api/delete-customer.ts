import { staffApi } from './client';
import { useCustomerMutation } from './customer-mutation';

export type DeleteCustomerVars = { customerId: string; reason: string };

/** DELETE staff/customers/:id {reason}: deletes the account (admin). Its refusal is shown in the dialog that asked (no snackbar). */
export async function deleteCustomer({ customerId, ...body }: DeleteCustomerVars): Promise<void> {
  await staffApi.delete(`customers/${encodeURIComponent(customerId)}`, { json: body, context: { silent: true } });
}

export function useDeleteCustomer() {
  return useCustomerMutation(deleteCustomer);
}
