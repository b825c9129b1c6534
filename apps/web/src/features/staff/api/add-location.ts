import { staffApi } from './client';
import { useLocationsMutation } from './locations-mutation';

export interface AddLocationBody {
  slug: string;
  country: string;
  city: string;
  premium: boolean;
  visible: boolean;
}

/** POST staff/locations: a new location (no nodes yet, so customers do not see it until one reports). */
export async function addLocation(body: AddLocationBody): Promise<void> {
  await staffApi.post('locations', { json: body });
}

export function useAddLocation() {
  return useLocationsMutation(addLocation);
}
