import { staffApi } from './client';
import { useCustomerMutation } from './customer-mutation';

export type SignOutAllVars = { customerId: string };

/** POST staff/customers/:id/sign-out-all: revokes every session of the customer. */
export async function signOutAll({ customerId, ...body }: SignOutAllVars): Promise<void> {
  await staffApi.post(`customers/${encodeURIComponent(customerId)}/sign-out-all`, { json: body });
}

export function useSignOutAll() {
  return useCustomerMutation(signOutAll);
}
