import type { AuthenticationResponseJSON } from '@simplewebauthn/browser';
import { PASSKEY_PATHS, isAuthResultShape, type AuthResult } from '@warren/contract';
import { api } from '../../../lib/api-client';
import { ensureShape } from '../../../lib/answer-shape';
import { passkeySignInOptions } from './passkey-options';

/** POST users/passkey/login {response}: a passkey signs in alone. Silent: the page says what failed. */
export async function passkeySignIn(response: AuthenticationResponseJSON): Promise<AuthResult> {
  const res = await api
    .post(PASSKEY_PATHS.signIn.replace(/^\/api\//, ''), { json: { response }, context: { silent: true } })
    .json<{ data: unknown }>();
  return ensureShape(res.data, isAuthResultShape, 'users/passkey/login');
}

/**
 * The browser's assertion for a fresh challenge. `autofill`: conditional UI (the passkeys show in the
 * email field's suggestions and the promise waits until one is picked); a later call aborts it.
 */
export async function passkeyAssertion(
  autofill = false,
  use: 'sign-in' | 'second-step' = 'sign-in',
): Promise<AuthenticationResponseJSON> {
  const optionsJSON = await passkeySignInOptions(autofill ? 'autofill' : use);
  const { startAuthentication } = await import('@simplewebauthn/browser');
  return startAuthentication({ optionsJSON, useBrowserAutofill: autofill });
}
