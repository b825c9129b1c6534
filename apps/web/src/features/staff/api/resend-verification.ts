import { staffApi } from './client';
import { useCustomerMutation } from './customer-mutation';

export type ResendVerificationVars = { customerId: string };

/** POST staff/customers/:id/resend-verification: sends the verification mail again. */
export async function resendVerification({ customerId, ...body }: ResendVerificationVars): Promise<void> {
  await staffApi.post(`customers/${encodeURIComponent(customerId)}/resend-verification`, { json: body });
}

export function useResendVerification() {
  return useCustomerMutation(resendVerification);
}
