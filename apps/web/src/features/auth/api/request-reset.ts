import { useMutation } from '@tanstack/react-query';
import type { RequestResetBody } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { restrictedPost, usesRestrictedCalls } from '../../../lib/restricted-call';

export interface MessageAnswer {
  data: { ok: true };
  message: string;
}

/** POST users/requestResetPassword (or the restricted variant) → the server's message. */
export async function requestReset(body: RequestResetBody): Promise<MessageAnswer> {
  if (usesRestrictedCalls()) return restrictedPost<MessageAnswer>('users/restrictedRequestResetPassword', body);
  return api.post('users/requestResetPassword', { json: body }).json<MessageAnswer>();
}

export function useRequestReset() {
  return useMutation({ mutationKey: ['users', 'requestResetPassword'], mutationFn: requestReset });
}
