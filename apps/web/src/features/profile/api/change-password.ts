import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { RESTRICTED_PATHS, type changePasswordBody } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { restrictedPost, usesRestrictedCalls } from '../../../lib/restricted-call';

/** POST profile/password (restrictedPassword on a restricted host): changes the password and signs out every other session. Silent: the form shows errors. */
export async function changePassword(body: z.input<typeof changePasswordBody>): Promise<void> {
  if (usesRestrictedCalls()) {
    await restrictedPost(RESTRICTED_PATHS.changePassword, body, { silent: true }, { withToken: true });
    return;
  }
  await api.post('profile/password', { json: body, context: { silent: true } });
}

export function useChangePassword() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: changePassword,
    onSuccess: () => qc.invalidateQueries({ queryKey: ['profile', 'sessions'] }),
  });
}
