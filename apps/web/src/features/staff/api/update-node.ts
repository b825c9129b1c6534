import { envelope, staffNode, type StaffNode } from '@warren/contract';
import { staffApi } from './client';
import { useLocationsMutation } from './locations-mutation';

/** PATCH staff/nodes/:name {enabled} (admin): a disabled node gets no customers' peers. */
export async function updateNode({ name, enabled }: { name: string; enabled: boolean }): Promise<StaffNode> {
  return envelope(staffNode).parse(await staffApi.patch(`nodes/${encodeURIComponent(name)}`, { json: { enabled } }).json()).data;
}

export function useUpdateNode() {
  return useLocationsMutation(updateNode);
}
