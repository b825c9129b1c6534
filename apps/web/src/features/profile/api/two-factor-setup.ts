import { useMutation } from '@tanstack/react-query';
import { RESTRICTED_PATHS, envelope, twoFactorSetup } from '@warren/contract';
import type { z } from 'zod';
import { api } from '../../../lib/api-client';
import { restrictedPost, usesRestrictedCalls } from '../../../lib/restricted-call';

export type TwoFactorSetup = z.infer<typeof twoFactorSetup>;

/** POST profile/2fa/setup: a new TOTP secret and its otpauth:// URL (not on until confirmed with a code). */
export async function startTwoFactor(): Promise<TwoFactorSetup> {
  const res = usesRestrictedCalls()
    ? await restrictedPost(RESTRICTED_PATHS.twoFactorSetup, {}, {}, { withToken: true })
    : await api.post('profile/2fa/setup').json();
  return envelope(twoFactorSetup).parse(res).data;
}

export function useStartTwoFactor() {
  return useMutation({ mutationFn: startTwoFactor });
}
