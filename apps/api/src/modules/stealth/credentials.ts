import { createHmac, randomBytes } from 'node:crypto';
import { hashToken } from '../../lib/secrets.js';

/**
 * Stealth credentials of one account, all derived from one random seed per account (32 bytes,
 * stored) under a key derived from APP_SECRET (never stored):
 *   VLESS id      = the first 16 bytes of HMAC(key, "vless:<user>:<seed>") as a version-4 UUID (122 bits)
 *   Trojan pass   = HMAC(key, "trojan:<user>:<seed>"), base64url (256 bits)
 *   subscription  = HMAC(key, "sub:<user>:<seed>"), base64url (256 bits); the table keeps its sha256
 * So the owner can be shown them again at any time, a database dump alone yields none of them, and
 * a reset (a new seed) changes all three at once. Changing APP_SECRET changes every account's
 * credentials and subscription URL (customers re-import; the nodes follow on their next full state).
 */
export interface StealthSecrets {
  id: string;
  password: string;
  subscription: string;
}

export const newStealthSeed = (): string => randomBytes(32).toString('base64url');

export function stealthKeys(appSecret: string) {
  const key = createHmac('sha256', appSecret).update('warren stealth credentials v1').digest();
  const mac = (label: string, userId: number, seed: string) => createHmac('sha256', key).update(`${label}:${userId}:${seed}`).digest();

  return {
    derive(userId: number, seed: string): StealthSecrets {
      const raw = mac('vless', userId, seed).subarray(0, 16);
      raw[6] = (raw[6]! & 0x0f) | 0x40; // version 4
      raw[8] = (raw[8]! & 0x3f) | 0x80; // RFC 4122 variant
      const hex = raw.toString('hex');
      return {
        id: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
        password: mac('trojan', userId, seed).toString('base64url'),
        subscription: mac('sub', userId, seed).toString('base64url'),
      };
    },
    /** What the table stores to find an account by its subscription secret. */
    subHash: (subscription: string) => hashToken(subscription),
  };
}
export type StealthKeys = ReturnType<typeof stealthKeys>;
