import { queryOptions, useQuery } from '@tanstack/react-query';
import { RESTRICTED_PATHS, envelope, profile, type Profile } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { restrictedPost, usesRestrictedCalls } from '../../../lib/restricted-call';

/** GET profile: names, email, language, email preferences and two-factor state. */
export async function getProfile(): Promise<Profile> {
  // A restricted host reads it with profile/restrictedGet (the email only encrypted).
  const body = usesRestrictedCalls()
    ? await restrictedPost(RESTRICTED_PATHS.profile, {}, {}, { withToken: true })
    : await api.get('profile').json();
  return envelope(profile).parse(body).data;
}

export const profileQuery = queryOptions({ queryKey: ['profile'], queryFn: getProfile, staleTime: 30_000 });

export function useProfile() {
  return useQuery(profileQuery);
}
