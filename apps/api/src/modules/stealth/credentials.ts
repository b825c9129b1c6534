import { createHmac, randomBytes } from 'node:crypto';
import { hashToken } from '../../lib/secrets.js';

/**
 * Stealth credentials of one account, all derived from one random seed per account (32 bytes,
 * stored) under the stealth key (stored sealed by the key ring, stealth/key.ts):
 *   VLESS id      = the first 16 bytes of HMAC(key, "vless:<user>:<seed>") as a version-4 UUID (122 bits)
 *   Trojan pass   = HMAC(key, "trojan:<user>:<seed>"), base64url (256 bits)
 *   subscription  = HMAC(key, "sub:<user>:<seed>"), base64url (256 bits); the table keeps its sha256
 * So the owner can be shown them again at any time, a database dump alone yields none of them (the
 * key is sealed under APP_SECRET), and a reset (a new seed) changes all three at once. Rotating
 * APP_SECRET re-seals the key and changes no customer's credentials.
 */
export interface StealthSecrets {
  id: string;
  password: string;
  subscription: string;
}

export const newStealthSeed = (): string => randomBytes(32).toString('base64url');

/** The key releases before the stored one derived from APP_SECRET: a first start finds the one customers' credentials were made under (stealth/key.ts). */
export const legacyStealthKey = (appSecret: string): Buffer =>
  createHmac('sha256', appSecret).update('warren stealth credentials v1').digest();

/** One account's credentials under `key`. */
export function deriveStealthSecrets(key: Buffer, userId: number, seed: string): StealthSecrets {
  const mac = (label: string) => createHmac('sha256', key).update(`${label}:${userId}:${seed}`).digest();
  const raw = mac('vless').subarray(0, 16);
  raw[6] = (raw[6]! & 0x0f) | 0x40; // version 4
  raw[8] = (raw[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const hex = raw.toString('hex');
  return {
    id: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
    password: mac('trojan').toString('base64url'),
    subscription: mac('sub').toString('base64url'),
  };
}

/** What the table stores to find an account by its subscription secret. */
export const stealthSubHash = (subscription: string): string => hashToken(subscription);

/** The credentials under the stealth key, loaded once from the database when first needed (a failed load is tried again). */
export function stealthKeys(loadKey: () => Promise<Buffer>) {
  let key: Promise<Buffer> | undefined;
  const current = () =>
    (key ??= loadKey().catch((err: unknown) => {
      key = undefined;
      throw err;
    }));
  return {
    async derive(userId: number, seed: string): Promise<StealthSecrets> {
      return deriveStealthSecrets(await current(), userId, seed);
    },
    subHash: stealthSubHash,
  };
}
export type StealthKeys = ReturnType<typeof stealthKeys>;
