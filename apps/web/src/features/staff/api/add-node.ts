import { staffApi } from './client';
import { useLocationsMutation } from './locations-mutation';

export interface AddNodeBody {
  locationId: number;
  name: string;
  host: string;
}

/** POST staff/nodes: a new node; the answer carries its token, shown this once and never again. */
export async function addNode(body: AddNodeBody): Promise<{ token: string }> {
  return (await staffApi.post('nodes', { json: body }).json<{ data: { token: string } }>()).data;
}

export function useAddNode() {
  return useLocationsMutation(addNode);
}
