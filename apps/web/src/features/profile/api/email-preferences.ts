import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { profileQuery } from './get-profile';

/** POST profile/email/unsubscribe {marketing}: news and offers on or off (account mail always arrives). */
export async function setEmailPreferences(body: { marketing: boolean }): Promise<void> {
  await api.post('profile/email/unsubscribe', { json: body });
}

export function useEmailPreferences() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: setEmailPreferences,
    onSuccess: (_r, v) =>
      qc.setQueryData(profileQuery.queryKey, (p) => (p ? { ...p, marketingEmails: v.marketing } : p)),
  });
}
