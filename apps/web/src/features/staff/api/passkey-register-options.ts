import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { PASSKEY_PATHS } from '@warren/contract';
import { staffApi } from './client';
import { staffPasskeyPath } from './passkeys';

/** POST staff/passkeys/register/options {password}: the password again, as in the profile. Silent: the dialog shows errors. */
export async function staffPasskeyRegisterOptions(body: {
  password: string;
}): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const res = await staffApi
    .post(staffPasskeyPath(PASSKEY_PATHS.staffRegisterOptions), { json: body, context: { silent: true } })
    .json<{ data: PublicKeyCredentialCreationOptionsJSON }>();
  return res.data;
}
