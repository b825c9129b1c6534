import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { staffApi } from './client';

/**
 * POST staff/session/passkey-options, then the browser's assertion: a passkey of the member's account
 * as the sign-in's second step (sent with the email and password to POST staff/session).
 */
export async function staffPasskeyAssertion(): Promise<AuthenticationResponseJSON> {
  const res = await staffApi
    .post('session/passkey-options', {
      json: { use: 'second-step' },
      context: { silent: true, skipAuthHandling: true },
    })
    .json<{ data: PublicKeyCredentialRequestOptionsJSON }>();
  const { startAuthentication } = await import('@simplewebauthn/browser');
  return startAuthentication({ optionsJSON: res.data });
}
