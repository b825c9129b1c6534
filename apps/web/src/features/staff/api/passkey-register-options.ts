import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { staffApi } from './client';

/** POST staff/passkeys/register/options {password}: the password again, as in the profile. Silent: the dialog shows errors. */
export async function staffPasskeyRegisterOptions(body: {
  password: string;
}): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const res = await staffApi
    .post('passkeys/register/options', { json: body, context: { silent: true } })
    .json<{ data: PublicKeyCredentialCreationOptionsJSON }>();
  return res.data;
}
