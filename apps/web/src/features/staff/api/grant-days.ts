import { customerAction, useCustomerMutation, type CustomerActionVars } from './customer-mutation';

/** POST staff/customers/:id/grant-days {days, reason} (support): adds days to the paid period. */
export const grantDays = (vars: CustomerActionVars & { days: number; reason: string }) =>
  customerAction('grant-days', vars);

export function useGrantDays() {
  return useCustomerMutation(grantDays);
}
