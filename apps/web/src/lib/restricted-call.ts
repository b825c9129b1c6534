import type { KyInstance } from 'ky';
import { createApiClient, type RequestContext } from './api-client';
import { getBrand } from './brand';
import { decryptPayload, encryptPayload } from './restricted-crypto';
import { usesRestrictedCalls } from './restricted-envelope';
import { getToken, setToken } from './token';

export { usesRestrictedCalls };

/*
 * The restricted, encrypted calls for hosts that are not main-product (spec section 6). On such
 * a host every call that carries an email, a password, a session or link token, a code or a
 * payment goes through them (RESTRICTED_PATHS in the contract: sign-up, sign-in, the reset, the
 * verification and one-time links, the session check, the profile, the password change,
 * two-factor, account deletion and every payment). The API refuses the plain JSON calls there.
 * Every other signed-in call goes through the envelope (lib/restricted-envelope.ts), which the
 * api client applies by itself.
 */

/**
 * Without the bearer header: a signed-in call puts its token inside the encrypted body (the
 * header is what a filter could spot). A 401 still signs the visitor out like any other call.
 */
let restrictedApi: KyInstance | null = null;

export interface RestrictedOptions {
  /** Send the stored token inside the encrypted body (signed-in calls). */
  withToken?: boolean;
  /** The body field that carries it: `token`, or `sessionToken` where `token` is a mailed link's (setNewPassword). */
  tokenField?: 'token' | 'sessionToken';
}

/**
 * POST users/restricted*, profile/restricted*, billing/*Restricted*: body and answer are
 * base64(iv || AES-256-GCM ciphertext || tag) text; errors come back as ordinary JSON error
 * bodies (handled by the api client).
 */
export async function restrictedPost<T>(
  path: string,
  payload: object,
  context: RequestContext = {},
  options: RestrictedOptions = {},
): Promise<T> {
  const key = getBrand().restrictedKey;
  if (!key) throw new Error('This site has no key for restricted calls.');
  const token = options.withToken ? getToken() : null;
  const body = await encryptPayload(token ? { ...payload, [options.tokenField ?? 'token']: token } : payload, key);
  restrictedApi ??= createApiClient({}, { bearer: false });
  const res = await restrictedApi.post(path, {
    body,
    headers: { 'content-type': 'text/plain' },
    context: { ...context },
  });
  const answer = await decryptPayload<T & { rotatedToken?: unknown }>(await res.text(), key);
  // A signed-in call may rotate the token (the API's sliding expiry): the new one comes inside the
  // encrypted answer, never in a clear Authorization header.
  if (token && typeof answer?.rotatedToken === 'string' && answer.rotatedToken !== getToken())
    setToken(answer.rotatedToken);
  return answer;
}
