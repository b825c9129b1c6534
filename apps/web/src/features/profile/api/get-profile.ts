import { queryOptions, useQuery } from '@tanstack/react-query';
import { envelope, profile, type Profile } from '@warren/contract';
import { api } from '../../../lib/api-client';

/** GET profile: names, email, language, email preferences and two-factor state. */
export async function getProfile(): Promise<Profile> {
  const body = await api.get('profile').json();
  return envelope(profile).parse(body).data;
}

export const profileQuery = queryOptions({ queryKey: ['profile'], queryFn: getProfile, staleTime: 30_000 });

export function useProfile() {
  return useQuery(profileQuery);
}
