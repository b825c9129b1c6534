import { useMutation } from '@tanstack/react-query';
import type { ResetPasswordBody } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { restrictedPost, usesRestrictedCalls } from '../../../lib/restricted-call';
import type { MessageAnswer } from './request-reset';

/** POST users/resetPassword (restrictedResetPassword on restricted hosts). Silent: failures get a 5 s snackbar on the page. */
export async function resetPassword(body: ResetPasswordBody): Promise<MessageAnswer> {
  if (usesRestrictedCalls())
    return restrictedPost<MessageAnswer>('users/restrictedResetPassword', body, { silent: true });
  return api.post('users/resetPassword', { json: body, context: { silent: true } }).json<MessageAnswer>();
}

export function useResetPassword() {
  return useMutation({ mutationKey: ['users', 'resetPassword'], mutationFn: resetPassword });
}
