import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/client.js';
import { type Keyring, SEAL } from '../../lib/keyring.js';
import { deriveStealthSecrets, legacyStealthKey, stealthSubHash } from './credentials.js';
import { stealthRepository } from './repository.js';

/**
 * The key every account's stealth credentials are derived under (credentials.ts), kept in the
 * database sealed by the key ring: rotating APP_SECRET re-seals it (`npx warren secrets reseal`)
 * and changes no customer's VLESS/Trojan credentials or subscription URL, which customers in a
 * censored network would otherwise have to import again.
 *
 * The first start that has no stored key keeps what customers already have: releases before it
 * derived the key from APP_SECRET, so the configured secrets (current and previous) are tried
 * against one account's stored subscription hash. A new deployment (no credentials yet), or data
 * made under a secret no longer configured, gets a random key.
 */
export async function loadStealthKey(db: Queryable, keys: Keyring): Promise<Buffer> {
  const repo = stealthRepository(db);
  let sealed = await repo.sealedKey();
  if (!sealed) {
    const sample = await repo.anyCredentials();
    const inUse = sample
      ? keys
          .appSecrets()
          .map(legacyStealthKey)
          .find(
            (k) =>
              stealthSubHash(deriveStealthSecrets(k, sample.user_id, sample.seed).subscription) === sample.sub_hash,
          )
      : undefined;
    await repo.saveKeyOnce(keys.seal(SEAL.stealthKey, (inUse ?? randomBytes(32)).toString('base64')));
    sealed = (await repo.sealedKey())!;
  }
  const plain = keys.open(SEAL.stealthKey, sealed);
  // The start-up check (modules/secrets) refuses to start when a sealed value's key is not configured.
  if (plain === null)
    throw new Error('The stealth credentials key cannot be opened with APP_SECRET or APP_SECRET_PREVIOUS.');
  return Buffer.from(plain, 'base64');
}
