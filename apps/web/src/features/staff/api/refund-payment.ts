import { staffApi } from './client';
import { useCustomerMutation } from './customer-mutation';

export type RefundPaymentVars = { customerId: string; paymentId: string; reason: string; outsideWindow: boolean };

/** POST staff/customers/:id/refund {paymentId, reason, outsideWindow}: money back (admin); outside the window only when said so. Its refusal is shown in the dialog that asked (no snackbar). */
export async function refundPayment({ customerId, ...body }: RefundPaymentVars): Promise<void> {
  await staffApi.post(`customers/${encodeURIComponent(customerId)}/refund`, { json: body, context: { silent: true } });
}

export function useRefundPayment() {
  return useCustomerMutation(refundPayment);
}
