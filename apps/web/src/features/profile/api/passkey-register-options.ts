import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { PASSKEY_PATHS } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { passkeyPath } from './passkeys';

/**
 * POST profile/passkeys/register/options {password}: the options for a new passkey. The password
 * again: a session alone (perhaps a stolen one) cannot add a way in. Silent: the dialog shows errors.
 */
export async function passkeyRegisterOptions(body: {
  password: string;
}): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const res = await api
    .post(passkeyPath(PASSKEY_PATHS.registerOptions), { json: body, context: { silent: true } })
    .json<{ data: PublicKeyCredentialCreationOptionsJSON }>();
  return res.data;
}
