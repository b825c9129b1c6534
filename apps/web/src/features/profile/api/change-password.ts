import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import type { changePasswordBody } from '@warren/contract';
import { api } from '../../../lib/api-client';

/** POST profile/password: changes the password and signs out every other session. Silent: the form shows errors. */
export async function changePassword(body: z.input<typeof changePasswordBody>): Promise<void> {
  await api.post('profile/password', { json: body, context: { silent: true } });
}

export function useChangePassword() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: changePassword, onSuccess: () => qc.invalidateQueries({ queryKey: ['profile', 'sessions'] }) });
}
