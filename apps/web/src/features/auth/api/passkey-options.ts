import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { PASSKEY_PATHS } from '@warren/contract';
import { api } from '../../../lib/api-client';

/**
 * POST users/passkey/options: a challenge for this browser (its id cookie), for "Sign in with a
 * passkey" and for a passkey as the second step after the password. Silent: the page says what failed.
 */
export async function passkeySignInOptions(
  use: 'sign-in' | 'autofill' | 'second-step',
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const res = await api
    .post(PASSKEY_PATHS.signInOptions.replace(/^\/api\//, ''), { json: { use }, context: { silent: true } })
    .json<{ data: PublicKeyCredentialRequestOptionsJSON }>();
  return res.data;
}
