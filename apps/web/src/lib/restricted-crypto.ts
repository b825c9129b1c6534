/**
 * Payloads of the restricted calls: base64( iv[12] || AES-256-GCM ciphertext || tag[16] ).
 * WebCrypto's AES-GCM output is already ciphertext||tag, so only the iv is prepended.
 */
const IV_BYTES = 12;

function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin);
}

export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const bin = atob(text.trim());
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function importKey(keyBase64: string): Promise<CryptoKey> {
  const raw = fromBase64(keyBase64);
  if (raw.length !== 32) throw new Error('The restricted key must be 32 bytes.');
  return crypto.subtle.importKey('raw', raw, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
}

export async function encryptPayload(payload: unknown, keyBase64: string): Promise<string> {
  const key = await importKey(keyBase64);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const plain = new TextEncoder().encode(JSON.stringify(payload));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, plain));
  const out = new Uint8Array(IV_BYTES + sealed.length);
  out.set(iv, 0);
  out.set(sealed, IV_BYTES);
  return toBase64(out);
}

export async function decryptPayload<T = unknown>(text: string, keyBase64: string): Promise<T> {
  const key = await importKey(keyBase64);
  const bytes = fromBase64(text);
  if (bytes.length < IV_BYTES + 16) throw new Error('The encrypted answer is too short.');
  const iv = bytes.slice(0, IV_BYTES);
  const sealed = bytes.slice(IV_BYTES);
  const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv }, key, sealed);
  return JSON.parse(new TextDecoder().decode(plain)) as T;
}
