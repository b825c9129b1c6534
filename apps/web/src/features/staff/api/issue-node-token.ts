import { envelope, staffNodeWithToken, type StaffNodeWithToken } from '@warren/contract';
import { staffApi } from './client';
import { useLocationsMutation } from './locations-mutation';

/** POST staff/nodes/:name/token (admin): a new token for the node; the old one stops working. Shown once. */
export async function issueNodeToken({ name }: { name: string }): Promise<StaffNodeWithToken> {
  return envelope(staffNodeWithToken).parse(
    await staffApi.post(`nodes/${encodeURIComponent(name)}/token`, { json: {} }).json(),
  ).data;
}

export function useIssueNodeToken() {
  return useLocationsMutation(issueNodeToken);
}
