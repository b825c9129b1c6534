import { useMutation, useQueryClient } from '@tanstack/react-query';
import { envelope, staffCustomerAnswer, type StaffCustomerAction, type StaffCustomerAnswer } from '@warren/contract';
import { STAFF_KEY, staffApi } from './client';
import { customerQuery } from './get-customer';

export interface CustomerActionVars {
  customerId: string;
  reason?: string;
}

/**
 * POST staff/customers/:id/<action>: every customer action answers the customer view as it now
 * is, which replaces the page's copy (no second request). Refusals are shown by the dialog that
 * asked, not as a snackbar.
 */
export async function customerAction<V extends CustomerActionVars>(
  action: StaffCustomerAction,
  { customerId, ...body }: V,
): Promise<StaffCustomerAnswer> {
  const res = await staffApi
    .post(`customers/${encodeURIComponent(customerId)}/${action}`, { json: body, context: { silent: true } })
    .json();
  return envelope(staffCustomerAnswer).parse(res).data;
}

export function useCustomerMutation<V extends CustomerActionVars>(call: (vars: V) => Promise<StaffCustomerAnswer>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: ({ customer }, vars) => {
      if (customer) qc.setQueryData(customerQuery(vars.customerId).queryKey, customer);
      else qc.removeQueries({ queryKey: customerQuery(vars.customerId).queryKey });
    },
    onSettled: () => qc.invalidateQueries({ queryKey: [STAFF_KEY, 'audit'] }),
  });
}
