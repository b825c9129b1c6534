import { RESTRICTED_PATHS } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { restrictedPost, usesRestrictedCalls } from '../../../lib/restricted-call';

/**
 * POST users/resendVerificationByLink {userId, token}: "Resend email" on the sign-in page after a
 * verification link failed (restrictedResendVerificationByLink on a restricted host). No session: the old link stands for the mailbox; the answer is the same whatever happened.
 */
export async function resendVerificationByLink(body: { userId: number; token: string }): Promise<void> {
  if (usesRestrictedCalls()) {
    await restrictedPost(RESTRICTED_PATHS.resendVerificationByLink, body, { silent: true });
    return;
  }
  await api.post('users/resendVerificationByLink', { json: body, context: { silent: true } });
}
