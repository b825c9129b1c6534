import { staffApi } from './client';
import { useCustomerMutation } from './customer-mutation';

export type ResetServicesVars = { customerId: string };

/** POST staff/customers/:id/services/reset: new OpenVPN/SOCKS5 credentials (admin). */
export async function resetServices({ customerId, ...body }: ResetServicesVars): Promise<void> {
  await staffApi.post(`customers/${encodeURIComponent(customerId)}/services/reset`, { json: body });
}

export function useResetServices() {
  return useCustomerMutation(resetServices);
}
