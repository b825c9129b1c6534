import { envelope, staffLocation, type StaffAddLocationBody, type StaffLocation } from '@warren/contract';
import { staffApi } from './client';
import { useLocationsMutation } from './locations-mutation';

/** POST staff/locations (admin): a new location, offered to customers once an enabled node in it has reported. */
export async function addLocation(body: StaffAddLocationBody): Promise<StaffLocation> {
  return envelope(staffLocation).parse(
    await staffApi.post('locations', { json: body, context: { silent: true } }).json(),
  ).data;
}

export function useAddLocation() {
  return useLocationsMutation(addLocation);
}
