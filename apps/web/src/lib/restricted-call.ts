import { api, type RequestContext } from './api-client';
import { getBrand } from './brand';
import { decryptPayload, encryptPayload } from './restricted-crypto';

/**
 * The restricted, encrypted calls for hosts that are not main-product (spec section 6): every
 * call that signs people in or up or resets a password (auth, the one-step checkout).
 */
export function usesRestrictedCalls(): boolean {
  const brand = getBrand();
  return !brand.mainProduct && !!brand.restrictedKey;
}

/**
 * POST users/restricted*: body and answer are base64(iv || AES-256-GCM ciphertext || tag)
 * text; errors come back as ordinary JSON error bodies (handled by the api client).
 */
export async function restrictedPost<T>(path: string, payload: unknown, context: RequestContext = {}): Promise<T> {
  const key = getBrand().restrictedKey;
  if (!key) throw new Error('This site has no key for restricted calls.');
  const body = await encryptPayload(payload, key);
  const text = await api.post(path, { body, headers: { 'content-type': 'text/plain' }, context: { ...context } }).text();
  return decryptPayload<T>(text, key);
}
