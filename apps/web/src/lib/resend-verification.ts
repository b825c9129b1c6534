import { useMutation } from '@tanstack/react-query';
import { api } from './api-client';

/**
 * POST users/resendVerification (no body) → `{ data: { ok }, message }`. Shared by the plans and
 * thank-you pages: both remind an unverified buyer to confirm the email.
 */
export async function resendVerification(): Promise<{ message: string }> {
  return api.post('users/resendVerification').json<{ message: string }>();
}

export function useResendVerification() {
  return useMutation({ mutationKey: ['users', 'resendVerification'], mutationFn: resendVerification });
}
