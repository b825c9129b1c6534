import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api } from './api-client';
import { snackbar } from './notify';

/**
 * POST users/resendVerification (no body) → `{ data: { ok }, message }`. Shared by the plans and
 * thank-you pages: both remind an unverified buyer to confirm the email.
 */
export async function resendVerification(): Promise<{ message: string }> {
  return api.post('users/resendVerification').json<{ message: string }>();
}

/** Send the link again and say so (the API's words, else ours); a failure is shown by the api client. */
export function useResendVerification() {
  const { t } = useTranslation();
  const mutation = useMutation({ mutationKey: ['users', 'resendVerification'], mutationFn: resendVerification });
  const send = async () => {
    try {
      const res = await mutation.mutateAsync();
      snackbar(res.message || t('plans.resent'), { kind: 'success' });
    } catch {
      /* the api client already showed the error */
    }
  };
  return { send, isPending: mutation.isPending };
}
