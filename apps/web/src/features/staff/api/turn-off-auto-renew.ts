import { customerAction, useCustomerMutation, type CustomerActionVars } from './customer-mutation';

/** POST staff/customers/:id/auto-renew-off {reason?} (support): no more renewals; the paid time stays. */
export const turnOffAutoRenew = (vars: CustomerActionVars) => customerAction('auto-renew-off', vars);

export function useTurnOffAutoRenew() {
  return useCustomerMutation(turnOffAutoRenew);
}
