import { envelope, staffLocation, type StaffLocation, type StaffPatchLocationBody } from '@warren/contract';
import { staffApi } from './client';
import { useLocationsMutation } from './locations-mutation';

/** PATCH staff/locations/:slug {enabled?, premium?, visible?} (admin); enabled switches all its nodes. */
export async function updateLocation({
  slug,
  ...body
}: StaffPatchLocationBody & { slug: string }): Promise<StaffLocation> {
  return envelope(staffLocation).parse(
    await staffApi.patch(`locations/${encodeURIComponent(slug)}`, { json: body }).json(),
  ).data;
}

export function useUpdateLocation() {
  return useLocationsMutation(updateLocation);
}
