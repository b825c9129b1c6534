import { staffApi } from './client';
import { useLocationsMutation } from './locations-mutation';

export interface UpdateLocationVars {
  id: number;
  premium?: boolean;
  visible?: boolean;
}

/** PATCH staff/locations/:id {premium?, visible?}. */
export async function updateLocation({ id, ...body }: UpdateLocationVars): Promise<void> {
  await staffApi.patch(`locations/${id}`, { json: body });
}

export function useUpdateLocation() {
  return useLocationsMutation(updateLocation);
}
