import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { RegistrationResponseJSON } from '@simplewebauthn/browser';
import { envelope, passkey, type Passkey } from '@warren/contract';
import { staffApi } from './client';
import { staffPasskeyRegisterOptions } from './passkey-register-options';
import { staffPasskeysQuery } from './passkeys';

/** POST staff/passkeys/register/verify {response, name}. Silent: the dialog shows errors. */
export async function staffPasskeyRegisterVerify(body: {
  response: RegistrationResponseJSON;
  name?: string;
}): Promise<Passkey> {
  const res = await staffApi.post('passkeys/register/verify', { json: body, context: { silent: true } }).json();
  return envelope(passkey).parse(res).data;
}

/** Options (with the password), the browser's ceremony, then the verification; the WebAuthn library loads only now. */
export async function addStaffPasskey(o: { password: string; name: string }): Promise<Passkey> {
  const optionsJSON = await staffPasskeyRegisterOptions({ password: o.password });
  const { startRegistration } = await import('@simplewebauthn/browser');
  return staffPasskeyRegisterVerify({ response: await startRegistration({ optionsJSON }), name: o.name });
}

export function useAddStaffPasskey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: addStaffPasskey,
    onSettled: () => qc.invalidateQueries({ queryKey: staffPasskeysQuery.queryKey }),
  });
}
