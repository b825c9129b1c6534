import { staffApi } from './client';
import { useLocationsMutation } from './locations-mutation';

export interface UpdateNodeVars {
  id: number;
  enabled: boolean;
}

/** PATCH staff/nodes/:id {enabled}: a disabled node gets no customers' peers. */
export async function updateNode({ id, ...body }: UpdateNodeVars): Promise<void> {
  await staffApi.patch(`nodes/${id}`, { json: body });
}

export function useUpdateNode() {
  return useLocationsMutation(updateNode);
}
