import { envelope, staffNode, type StaffNode } from '@warren/contract';
import { staffApi } from './client';
import { useLocationsMutation } from './locations-mutation';

/**
 * PATCH staff/nodes/:name {enabled} or {draining} (admin): a disabled node gets no customers' peers;
 * a draining one keeps them but is named in no new configuration, and its customers are told to move.
 */
export async function updateNode({
  name,
  ...patch
}: {
  name: string;
  enabled?: boolean;
  draining?: boolean;
}): Promise<StaffNode> {
  return envelope(staffNode).parse(await staffApi.patch(`nodes/${encodeURIComponent(name)}`, { json: patch }).json())
    .data;
}

export function useUpdateNode() {
  return useLocationsMutation(updateNode);
}
