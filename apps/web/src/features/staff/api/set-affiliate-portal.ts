import { customerAction, useCustomerMutation, type CustomerActionVars } from './customer-mutation';

/** POST staff/customers/:id/affiliate-portal {enabled, reason} (admin): the menu's affiliate link opens the brand's portal. */
export const setAffiliatePortal = (vars: CustomerActionVars & { enabled: boolean; reason: string }) =>
  customerAction('affiliate-portal', vars);

export function useSetAffiliatePortal() {
  return useCustomerMutation(setAffiliatePortal);
}
