import { customerAction, useCustomerMutation, type CustomerActionVars } from './customer-mutation';

/** POST staff/customers/:id/reset-service-credentials {reason} (admin): new OpenVPN/SOCKS5 and stealth credentials (a new subscription URL). */
export const resetServiceCredentials = (vars: CustomerActionVars & { reason: string }) =>
  customerAction('reset-service-credentials', vars);

export function useResetServiceCredentials() {
  return useCustomerMutation(resetServiceCredentials);
}
