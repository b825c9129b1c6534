import { api, type RequestContext } from './api-client';
import { getBrand } from './brand';
import { decryptPayload, encryptPayload } from './restricted-crypto';

/**
 * The restricted, encrypted calls for hosts that are not main-product (spec section 6), for
 * features besides auth that sign people in or up (the one-step checkout).
 */
export function usesRestrictedCalls(): boolean {
  const brand = getBrand();
  return !brand.mainProduct && !!brand.restrictedKey;
}

/** POST with body and answer as base64(iv || AES-256-GCM ciphertext || tag) text. */
export async function restrictedPost<T>(path: string, payload: unknown, context: RequestContext = {}): Promise<T> {
  const key = getBrand().restrictedKey;
  if (!key) throw new Error('This site has no key for restricted calls.');
  const body = await encryptPayload(payload, key);
  const text = await api.post(path, { body, headers: { 'content-type': 'text/plain' }, context: { ...context } }).text();
  return decryptPayload<T>(text, key);
}
