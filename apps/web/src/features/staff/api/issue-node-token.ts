import { staffApi } from './client';
import { useLocationsMutation } from './locations-mutation';

/** POST staff/nodes/:id/token: a new token for the node; the old one stops working. Shown once. */
export async function issueNodeToken({ id }: { id: number }): Promise<{ token: string }> {
  return (await staffApi.post(`nodes/${id}/token`, { json: {} }).json<{ data: { token: string } }>()).data;
}

export function useIssueNodeToken() {
  return useLocationsMutation(issueNodeToken);
}
