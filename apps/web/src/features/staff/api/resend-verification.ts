import { customerAction, useCustomerMutation, type CustomerActionVars } from './customer-mutation';

/** POST staff/customers/:id/resend-verification {reason?} (support): the verification mail again (422 when already verified). */
export const resendVerification = (vars: CustomerActionVars) => customerAction('resend-verification', vars);

export function useResendVerification() {
  return useCustomerMutation(resendVerification);
}
