import { envelope, staffNodeWithToken, type StaffAddNodeBody, type StaffNodeWithToken } from '@warren/contract';
import { staffApi } from './client';
import { useLocationsMutation } from './locations-mutation';

/** POST staff/nodes (admin): a new node; the answer carries its token, shown this once and never again. */
export async function addNode(body: StaffAddNodeBody): Promise<StaffNodeWithToken> {
  return envelope(staffNodeWithToken).parse(
    await staffApi.post('nodes', { json: body, context: { silent: true } }).json(),
  ).data;
}

export function useAddNode() {
  return useLocationsMutation(addNode);
}
