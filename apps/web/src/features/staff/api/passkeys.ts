import { queryOptions, useQuery } from '@tanstack/react-query';
import { envelope, passkeyList, type Passkey } from '@warren/contract';
import { staffApi } from './client';

// Paths relative to staffApi's /api/staff, written here rather than taken from the contract's
// STAFF_PASSKEY_PATHS: importing that object would put console paths into the chunk customer pages
// load (staff.spec: a customer's pages load no console code).

/** GET staff/passkeys: the signed-in member's passkeys (the account's: the same list as Profile → Passkeys). */
export async function getStaffPasskeys(): Promise<Passkey[]> {
  const body = await staffApi.get('passkeys').json();
  return envelope(passkeyList).parse(body).data.items;
}

export const staffPasskeysQuery = queryOptions({ queryKey: ['staff', 'passkeys'], queryFn: getStaffPasskeys });

export function useStaffPasskeys() {
  return useQuery(staffPasskeysQuery);
}
