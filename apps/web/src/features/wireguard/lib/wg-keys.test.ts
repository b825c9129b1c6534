import { describe, expect, it } from 'vitest';
import { generateWgKeyPair, publicKeyOf } from './wg-keys';

describe('WireGuard keys', () => {
  it('generates a key pair whose public key matches its private key', async () => {
    const pair = await generateWgKeyPair();
    expect(pair.publicKey).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(pair.privateKey).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(await publicKeyOf(pair.privateKey)).toBe(pair.publicKey);
  });
});
