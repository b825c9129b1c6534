import { customerAction, useCustomerMutation, type CustomerActionVars } from './customer-mutation';

/** POST staff/customers/:id/enable {reason} (admin): the account works again. */
export const enableCustomer = (vars: CustomerActionVars & { reason: string }) => customerAction('enable', vars);

export function useEnableCustomer() {
  return useCustomerMutation(enableCustomer);
}
