import { useMutation, useQueryClient } from '@tanstack/react-query';
import { RESTRICTED_PATHS, envelope, profile, type Profile, type profileUpdateBody } from '@warren/contract';
import type { z } from 'zod';
import { api } from '../../../lib/api-client';
import { restrictedPost, usesRestrictedCalls } from '../../../lib/restricted-call';
import { profileQuery } from './get-profile';

/** POST profile/update {firstName?, secondName?, language?}; silent: the form shows field errors. */
export async function updateProfile(body: z.input<typeof profileUpdateBody>): Promise<Profile> {
  const res = usesRestrictedCalls()
    ? await restrictedPost(RESTRICTED_PATHS.updateProfile, body, { silent: true }, { withToken: true })
    : await api.post('profile/update', { json: body, context: { silent: true } }).json();
  return envelope(profile).parse(res).data;
}

export function useUpdateProfile() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: updateProfile, onSuccess: (p) => qc.setQueryData(profileQuery.queryKey, p) });
}
