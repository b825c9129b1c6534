import { useMutation } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

/** POST users/resendVerification (no body) → `{ data: { ok }, message }`. */
export async function resendVerification(): Promise<{ message: string }> {
  return api.post('users/resendVerification').json<{ message: string }>();
}

export function useResendVerification() {
  return useMutation({ mutationKey: ['users', 'resendVerification'], mutationFn: resendVerification });
}
