import { useMutation } from '@tanstack/react-query';
import type { ResetPasswordBody } from '@warren/contract';
import { api } from '../../../lib/api-client';
import type { MessageAnswer } from './request-reset';

/** POST users/resetPassword. Silent: failures get a 5 s snackbar on the page. */
export async function resetPassword(body: ResetPasswordBody): Promise<MessageAnswer> {
  return api.post('users/resetPassword', { json: body, context: { silent: true } }).json<MessageAnswer>();
}

export function useResetPassword() {
  return useMutation({ mutationKey: ['users', 'resetPassword'], mutationFn: resetPassword });
}
