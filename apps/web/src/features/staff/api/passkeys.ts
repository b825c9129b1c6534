import { queryOptions, useQuery } from '@tanstack/react-query';
import { PASSKEY_PATHS, envelope, passkeyList, type Passkey } from '@warren/contract';
import { staffApi } from './client';

/** The console client's prefix is /api/staff/: the contract's paths without it. */
export const staffPasskeyPath = (path: string) => path.replace(/^\/api\/staff\//, '');

/** GET staff/passkeys: the signed-in member's passkeys (the account's: the same list as Profile → Passkeys). */
export async function getStaffPasskeys(): Promise<Passkey[]> {
  const body = await staffApi.get(staffPasskeyPath(PASSKEY_PATHS.staffList)).json();
  return envelope(passkeyList).parse(body).data.items;
}

export const staffPasskeysQuery = queryOptions({ queryKey: ['staff', 'passkeys'], queryFn: getStaffPasskeys });

export function useStaffPasskeys() {
  return useQuery(staffPasskeysQuery);
}
