import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { RegistrationResponseJSON } from '@simplewebauthn/browser';
import { PASSKEY_PATHS, envelope, passkey, type Passkey } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { passkeyRegisterOptions } from './passkey-register-options';
import { passkeyPath, passkeysQuery } from './passkeys';

/** POST profile/passkeys/register/verify {response, name}: stores the browser's new passkey. Silent: the dialog shows errors. */
export async function passkeyRegisterVerify(body: {
  response: RegistrationResponseJSON;
  name?: string;
}): Promise<Passkey> {
  const res = await api
    .post(passkeyPath(PASSKEY_PATHS.registerVerify), { json: body, context: { silent: true } })
    .json();
  return envelope(passkey).parse(res).data;
}

/**
 * Adds a passkey: the options (with the password), the browser's ceremony (the authenticator asks
 * for a fingerprint, face or PIN), then the verification. The WebAuthn library loads only now.
 */
export async function addPasskey(o: { password: string; name?: string }): Promise<Passkey> {
  const optionsJSON = await passkeyRegisterOptions({ password: o.password });
  const { startRegistration } = await import('@simplewebauthn/browser');
  const response = await startRegistration({ optionsJSON });
  return passkeyRegisterVerify({ response, name: o.name });
}

export function useAddPasskey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: addPasskey,
    onSettled: () => qc.invalidateQueries({ queryKey: passkeysQuery.queryKey }),
  });
}
