import { useMutation } from '@tanstack/react-query';
import type { z } from 'zod';
import { RESTRICTED_PATHS, type setNewPasswordBody } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { restrictedPost, usesRestrictedCalls } from '../../../lib/restricted-call';

/**
 * POST users/setNewPassword: no current password, but the token of the emailed set-new-pass
 * link (a session alone may be stolen). A wrong or spent token is a 422 on `token`.
 */
export async function setNewPassword(body: z.input<typeof setNewPasswordBody>): Promise<void> {
  // restrictedSetNewPassword: `token` stays the link's, the session goes as `sessionToken`.
  if (usesRestrictedCalls()) {
    await restrictedPost(
      RESTRICTED_PATHS.setNewPassword,
      body,
      { silent: true },
      { withToken: true, tokenField: 'sessionToken' },
    );
    return;
  }
  await api.post('users/setNewPassword', { json: body, context: { silent: true } });
}

export function useSetNewPassword() {
  return useMutation({ mutationFn: setNewPassword });
}

/** POST users/setNewPassword/sendLink: emails the signed-in user a link to /set-new-pass?token=…. */
export async function sendSetPasswordLink(): Promise<{ message: string }> {
  return api.post('users/setNewPassword/sendLink', { context: { silent: true } }).json<{ message: string }>();
}

export function useSendSetPasswordLink() {
  return useMutation({ mutationFn: sendSetPasswordLink });
}
