import { type Keyring, SEAL } from './keyring.js';
import { Secret, TOTP } from 'otpauth';

/** RFC 6238 TOTP as every authenticator app speaks it: SHA-1, 6 digits, 30 s (otpauth does the maths). */
const PARAMS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;

const totpOf = (secretBase32: string, issuer = '', label = '') =>
  new TOTP({ ...PARAMS, issuer, label, secret: Secret.fromBase32(secretBase32) });

/** A new 160-bit secret (RFC 4226's recommended length), base32 as authenticator apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export function otpauthUrl(secretBase32: string, issuer: string, account: string): string {
  return totpOf(secretBase32, issuer, account).toString();
}

/** Secrets are stored sealed (AES-256-GCM) under APP_SECRET, naming their key (lib/keyring.ts: old keys still open them). */
export function sealSecret(keys: Keyring, secretBase32: string): string {
  return keys.seal(SEAL.totp, secretBase32);
}

export function openSecret(keys: Keyring, sealed: string): string {
  const secret = keys.open(SEAL.totp, sealed);
  // The server checked at start that every key its data names is configured: this is a damaged value.
  if (secret === null)
    throw new Error(
      'A two-factor secret cannot be opened with the configured secrets (APP_SECRET, APP_SECRET_PREVIOUS).',
    );
  return secret;
}

/**
 * The time step a code belongs to (the current one or one either side, for clock drift), or null.
 * The caller refuses a step at or before the last one the account used: that makes a code single
 * use, and every earlier code with it.
 */
export function totpStep(keys: Keyring, sealed: string, code: string, nowMs = Date.now()): number | null {
  const clean = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(clean)) return null;
  const totp = totpOf(openSecret(keys, sealed));
  const delta = totp.validate({ token: clean, timestamp: nowMs, window: 1 });
  return delta === null ? null : totp.counter({ timestamp: nowMs }) + delta;
}

/** The code for a moment (tests and tools). */
export function totpCode(secretBase32: string, atMs = Date.now()): string {
  return totpOf(secretBase32).generate({ timestamp: atMs });
}
