import { customerAction, useCustomerMutation, type CustomerActionVars } from './customer-mutation';

/** POST staff/customers/:id/disable {reason} (admin): account suspended, its sessions end. */
export const disableCustomer = (vars: CustomerActionVars & { reason: string }) => customerAction('disable', vars);

export function useDisableCustomer() {
  return useCustomerMutation(disableCustomer);
}
