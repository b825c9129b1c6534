import { createHash } from 'node:crypto';
import { decryptText, encryptText } from './secrets.js';
import { Secret, TOTP } from 'otpauth';

/** RFC 6238 TOTP as every authenticator app speaks it: SHA-1, 6 digits, 30 s (otpauth does the maths). */
const PARAMS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;

const totpOf = (secretBase32: string, issuer = '', label = '') => new TOTP({ ...PARAMS, issuer, label, secret: Secret.fromBase32(secretBase32) });

/** A new 160-bit secret (RFC 4226's recommended length), base32 as authenticator apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export function otpauthUrl(secretBase32: string, issuer: string, account: string): string {
  return totpOf(secretBase32, issuer, account).toString();
}

/** Secrets are stored encrypted (AES-256-GCM, lib/secrets.ts) under a key derived from APP_SECRET. */
const keyFrom = (appSecret: string) => createHash('sha256').update(`totp:${appSecret}`).digest('base64');

export function sealSecret(appSecret: string, secretBase32: string): string {
  return encryptText(keyFrom(appSecret), secretBase32);
}

export function openSecret(appSecret: string, sealed: string): string {
  const secret = decryptText(keyFrom(appSecret), sealed);
  if (secret === null) throw new Error('The two-factor secret cannot be read with this APP_SECRET.');
  return secret;
}

/**
 * The time step a code belongs to (the current one or one either side, for clock drift), or null.
 * The caller refuses a step at or before the last one the account used: that makes a code single
 * use, and every earlier code with it.
 */
export function totpStep(appSecret: string, sealed: string, code: string, nowMs = Date.now()): number | null {
  const clean = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(clean)) return null;
  const totp = totpOf(openSecret(appSecret, sealed));
  const delta = totp.validate({ token: clean, timestamp: nowMs, window: 1 });
  return delta === null ? null : totp.counter({ timestamp: nowMs }) + delta;
}

/** The code for a moment (tests and tools). */
export function totpCode(secretBase32: string, atMs = Date.now()): string {
  return totpOf(secretBase32).generate({ timestamp: atMs });
}
