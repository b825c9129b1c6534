import { customerAction, useCustomerMutation, type CustomerActionVars } from './customer-mutation';

/** POST staff/customers/:id/delete {reason} (admin): the account is deleted as if the customer did it; the answer has no customer. */
export const deleteCustomer = (vars: CustomerActionVars & { reason: string }) => customerAction('delete', vars);

export function useDeleteCustomer() {
  return useCustomerMutation(deleteCustomer);
}
