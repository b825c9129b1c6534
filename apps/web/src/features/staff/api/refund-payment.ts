import { customerAction, useCustomerMutation, type CustomerActionVars } from './customer-mutation';

/** POST staff/customers/:id/refund {paymentId, reason, outsideWindow?} (admin): the money back; after the window only with outsideWindow. */
export const refundPayment = (
  vars: CustomerActionVars & { paymentId: string; reason: string; outsideWindow?: boolean },
) => customerAction('refund', vars);

export function useRefundPayment() {
  return useCustomerMutation(refundPayment);
}
