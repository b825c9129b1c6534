import { createHash, hkdfSync } from 'node:crypto';
import { decryptText, encryptText } from './secrets.js';

/**
 * The server's secrets as a key ring (issue 22: secret rotation). APP_SECRET (and OPENVPN_CA_SECRET,
 * when set) seal new data; every secret in APP_SECRET_PREVIOUS only opens what was sealed under it.
 * A sealed value names its key: `<key id>:<base64(iv || ciphertext || tag)>`, the id being a hash of
 * the secret (`k` + 12 hex digits; it reveals nothing of a 32-character secret), so the server can
 * tell at start which secrets its data needs (modules/secrets) and `npx warren secrets reseal` can
 * move everything under the current one. Values sealed before key ids (no prefix: base64 never holds
 * a colon) are opened by trying each key, and get their id at the next start.
 */

/** What is sealed, and how its AES-256 key is derived from a secret: kept as each was before key ids, so old values open. */
export interface SealPurpose {
  /** For messages: "two-factor secret". */
  label: string;
  /** Which setting seals it now: OPENVPN_CA_SECRET (when set) for the OpenVPN material, else APP_SECRET. */
  sealedWith: 'app' | 'ca';
  derive(secret: string): string;
}

const hkdfKey = (secret: string, purpose: string) =>
  Buffer.from(hkdfSync('sha256', secret, 'warren-services', purpose, 32)).toString('base64');

export const SEAL = {
  totp: {
    label: 'two-factor secret',
    sealedWith: 'app',
    derive: (s) => createHash('sha256').update(`totp:${s}`).digest('base64'),
  },
  servicePassword: {
    label: 'OpenVPN/SOCKS5 password',
    sealedWith: 'ca',
    derive: (s) => hkdfKey(s, 'service-passwords'),
  },
  openvpnPki: { label: 'OpenVPN private key', sealedWith: 'ca', derive: (s) => hkdfKey(s, 'openvpn-pki') },
  stealthKey: { label: 'stealth credentials key', sealedWith: 'app', derive: (s) => hkdfKey(s, 'stealth-key') },
} as const satisfies Record<string, SealPurpose>;

export const keyIdOf = (secret: string): string =>
  `k${createHash('sha256').update(`warren key id v1:${secret}`).digest('hex').slice(0, 12)}`;

const SEALED = /^(k[0-9a-f]{12}):([A-Za-z0-9+/=]+)$/;

export interface KeyringSecrets {
  /** APP_SECRET. */
  app: string;
  /** OPENVPN_CA_SECRET, else APP_SECRET. */
  ca: string;
  /** APP_SECRET_PREVIOUS: secrets replaced, still needed to open what they sealed. */
  previous: readonly string[];
}

export interface KeyInfo {
  id: string;
  /** The setting that holds it: APP_SECRET, OPENVPN_CA_SECRET or APP_SECRET_PREVIOUS (n-th). */
  setting: string;
}

export function keyring(secrets: KeyringSecrets) {
  const known = new Map<string, { secret: string; setting: string }>();
  const add = (secret: string, setting: string) => {
    const id = keyIdOf(secret);
    if (!known.has(id)) known.set(id, { secret, setting });
  };
  add(secrets.app, 'APP_SECRET');
  add(secrets.ca, 'OPENVPN_CA_SECRET');
  secrets.previous.forEach((s, i) =>
    add(s, secrets.previous.length > 1 ? `APP_SECRET_PREVIOUS (#${i + 1})` : 'APP_SECRET_PREVIOUS'),
  );
  const current = { app: keyIdOf(secrets.app), ca: keyIdOf(secrets.ca) };
  const derived = new Map<string, string>();
  const keyOf = (purpose: SealPurpose, id: string) => {
    const cacheKey = `${purpose.label}\0${id}`;
    let key = derived.get(cacheKey);
    if (key === undefined) {
      key = purpose.derive(known.get(id)!.secret);
      derived.set(cacheKey, key);
    }
    return key;
  };

  /**
   * The plain text and the key that opened it; null when no configured key does (a value under a
   * key that is not configured, or tampered with). The server checks at start that every key its
   * data names is configured (modules/secrets), so null here means a damaged value.
   */
  function openWithId(purpose: SealPurpose, sealed: string): { plain: string; id: string } | null {
    const m = SEALED.exec(sealed);
    if (m) {
      if (!known.has(m[1]!)) return null;
      const plain = decryptText(keyOf(purpose, m[1]!), m[2]!);
      return plain === null ? null : { plain, id: m[1]! };
    }
    for (const id of known.keys()) {
      const plain = decryptText(keyOf(purpose, id), sealed);
      if (plain !== null) return { plain, id };
    }
    return null;
  }

  return {
    /** The id new values of this purpose are sealed under. */
    currentId: (purpose: SealPurpose): string => current[purpose.sealedWith],
    /** The key id a sealed value names; undefined for a value sealed before key ids. */
    idOf(sealed: string): string | undefined {
      return SEALED.exec(sealed)?.[1];
    },
    knows: (id: string): boolean => known.has(id),
    /** Every configured key, current ones first (startup errors and `secrets status` name them). */
    keys: (): KeyInfo[] => [...known].map(([id, k]) => ({ id, setting: k.setting })),
    seal(purpose: SealPurpose, plain: string): string {
      const id = current[purpose.sealedWith];
      return `${id}:${encryptText(keyOf(purpose, id), plain)}`;
    },
    openWithId,
    open(purpose: SealPurpose, sealed: string): string | null {
      return openWithId(purpose, sealed)?.plain ?? null;
    },
    /**
     * The secrets signatures are checked against: APP_SECRET first (it signs), then the previous
     * ones, so links, cookies and stored HMACs made before a rotation keep working until the old
     * secret is removed.
     */
    appSecrets: (): string[] => [secrets.app, ...secrets.previous],
  };
}
export type Keyring = ReturnType<typeof keyring>;

/** The key ring of a configuration (APP_SECRET, OPENVPN_CA_SECRET, APP_SECRET_PREVIOUS). */
export const keyringOf = (config: {
  appSecret: string;
  openvpnCaSecret: string;
  previousSecrets: readonly string[];
}): Keyring => keyring({ app: config.appSecret, ca: config.openvpnCaSecret, previous: config.previousSecrets });
