import { api } from '../../../lib/api-client';

/**
 * POST users/resendVerificationByLink {userId, token}: "Resend email" on the sign-in page after a
 * verification link failed. No session: the old link stands for the mailbox; the answer is the same whatever happened.
 */
export async function resendVerificationByLink(body: { userId: number; token: string }): Promise<void> {
  await api.post('users/resendVerificationByLink', { json: body, context: { silent: true } });
}
