import { customerAction, useCustomerMutation, type CustomerActionVars } from './customer-mutation';

/** POST staff/customers/:id/sign-out-all {reason} (support): ends every session of the customer. */
export const signOutAll = (vars: CustomerActionVars & { reason: string }) => customerAction('sign-out-all', vars);

export function useSignOutAll() {
  return useCustomerMutation(signOutAll);
}
