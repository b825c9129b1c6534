import { useMutation } from '@tanstack/react-query';
import type { z } from 'zod';
import type { setNewPasswordBody } from '@warren/contract';
import { api } from '../../../lib/api-client';

/** POST users/setNewPassword: no current password, but a session younger than 15 minutes (else 403). */
export async function setNewPassword(body: z.input<typeof setNewPasswordBody>): Promise<void> {
  await api.post('users/setNewPassword', { json: body, context: { silent: true } });
}

export function useSetNewPassword() {
  return useMutation({ mutationFn: setNewPassword });
}
