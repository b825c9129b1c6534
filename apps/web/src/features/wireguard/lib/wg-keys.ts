/**
 * WireGuard key pairs made in the browser: WebCrypto X25519 where the browser has it, else the
 * audited @noble/curves (loaded only then). The private key never leaves this page.
 */
export interface WgKeyPair {
  privateKey: string;
  publicKey: string;
}

export const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

async function webCrypto(): Promise<WgKeyPair | null> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return null;
  try {
    const pair = (await subtle.generateKey({ name: 'X25519' }, true, ['deriveBits'])) as CryptoKeyPair;
    const raw = new Uint8Array(await subtle.exportKey('raw', pair.publicKey));
    const jwk = await subtle.exportKey('jwk', pair.privateKey);
    if (!jwk.d || raw.length !== 32) return null;
    const d = atob(jwk.d.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (jwk.d.length % 4)) % 4));
    const priv = Uint8Array.from(d, (c) => c.charCodeAt(0));
    return { privateKey: toBase64(priv), publicKey: toBase64(raw) };
  } catch {
    return null; // no X25519 in this browser
  }
}

async function noble(): Promise<WgKeyPair> {
  const { x25519 } = await import('@noble/curves/ed25519.js');
  const priv = x25519.utils.randomSecretKey();
  return { privateKey: toBase64(priv), publicKey: toBase64(x25519.getPublicKey(priv)) };
}

export async function generateWgKeyPair(): Promise<WgKeyPair> {
  return (await webCrypto()) ?? noble();
}

/** The public key of a private key (both base64), for checks. */
export async function publicKeyOf(privateKey: string): Promise<string> {
  const { x25519 } = await import('@noble/curves/ed25519.js');
  return toBase64(x25519.getPublicKey(Uint8Array.from(atob(privateKey), (c) => c.charCodeAt(0))));
}
