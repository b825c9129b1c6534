import { type KeyObject, createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/**
 * A software authenticator for the passkey tests: a real P-256 key made with node:crypto, a real
 * attestation object ('none' format, CBOR) and real assertions signed with the private key, so
 * @simplewebauthn/server verifies genuine signatures, exactly as it would a phone's or a security
 * key's. Nothing is mocked on the server side. Each field a test may want to falsify (origin, RP
 * ID, counter, user verification, the challenge) is a parameter.
 */

// --- a minimal CBOR encoder (RFC 8949): unsigned/negative ints, byte and text strings, maps ---
function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
  if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}
type Cbor = number | string | Uint8Array | Map<number | string, Cbor>;
export function cbor(v: Cbor): Buffer {
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === 'string') {
    const s = Buffer.from(v, 'utf8');
    return Buffer.concat([head(3, s.length), s]);
  }
  if (v instanceof Uint8Array) return Buffer.concat([head(2, v.length), v]);
  const parts: Buffer[] = [head(5, v.size)];
  for (const [k, val] of v) parts.push(cbor(k), cbor(val));
  return Buffer.concat(parts);
}

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest();
const b64u = (b: Buffer | Uint8Array) => Buffer.from(b).toString('base64url');

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_BE = 0x08;
const FLAG_BS = 0x10;
const FLAG_AT = 0x40;

export interface SoftPasskey {
  credentialId: Buffer;
  privateKey: KeyObject;
  cose: Buffer;
  rpId: string;
  userHandle: string;
  counter: number;
}

export interface CeremonyOptions {
  /** The origin the "browser" reports in clientDataJSON. */
  origin: string;
  /** The RP ID whose hash the authenticator puts in its data (defaults to the passkey's). */
  rpId?: string;
  /** The challenge to sign (base64url); defaults to the one in the options. */
  challenge?: string;
  userVerified?: boolean;
  /** The signature counter to report; defaults to the passkey's counter + 1 (or 0 for a synced one). */
  counter?: number;
}

function authData(rpId: string, flags: number, counter: number, attested?: Buffer): Buffer {
  const c = Buffer.alloc(4);
  c.writeUInt32BE(counter >>> 0);
  return Buffer.concat([sha256(rpId), Buffer.from([flags]), c, ...(attested ? [attested] : [])]);
}

/** Makes a new passkey for `options` (the server's creation options JSON); answers it and the browser's RegistrationResponseJSON. */
export function createPasskey(
  options: { challenge: string; rp: { id?: string }; user: { id: string } },
  o: CeremonyOptions & { synced?: boolean },
): { passkey: SoftPasskey; response: Record<string, unknown> } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const cose = cbor(
    new Map<number, Cbor>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]),
  );
  const credentialId = randomBytes(32);
  const rpId = o.rpId ?? options.rp.id!;
  const idLen = Buffer.alloc(2);
  idLen.writeUInt16BE(credentialId.length);
  const attested = Buffer.concat([Buffer.alloc(16), idLen, credentialId, cose]);
  const flags = FLAG_UP | (o.userVerified === false ? 0 : FLAG_UV) | FLAG_AT | (o.synced ? FLAG_BE | FLAG_BS : 0);
  const data = authData(rpId, flags, o.counter ?? 0, attested);
  const clientDataJSON = Buffer.from(
    JSON.stringify({
      type: 'webauthn.create',
      challenge: o.challenge ?? options.challenge,
      origin: o.origin,
      crossOrigin: false,
    }),
  );
  const attestationObject = cbor(
    new Map<string, Cbor>([
      ['fmt', 'none'],
      ['attStmt', new Map()],
      ['authData', data],
    ]),
  );
  return {
    passkey: {
      credentialId,
      privateKey,
      cose,
      rpId: options.rp.id!,
      userHandle: options.user.id,
      counter: o.counter ?? 0,
    },
    response: {
      id: b64u(credentialId),
      rawId: b64u(credentialId),
      type: 'public-key',
      response: {
        clientDataJSON: b64u(clientDataJSON),
        attestationObject: b64u(attestationObject),
        transports: ['internal'],
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    },
  };
}

/** Signs an assertion for `options` (the server's request options JSON): the browser's AuthenticationResponseJSON. */
export function assert(
  passkey: SoftPasskey,
  options: { challenge: string },
  o: CeremonyOptions & { synced?: boolean; credentialId?: Buffer },
): Record<string, unknown> {
  const counter = o.counter ?? (o.synced ? 0 : passkey.counter + 1);
  if (o.counter === undefined && !o.synced) passkey.counter = counter;
  const flags = FLAG_UP | (o.userVerified === false ? 0 : FLAG_UV) | (o.synced ? FLAG_BE | FLAG_BS : 0);
  const data = authData(o.rpId ?? passkey.rpId, flags, counter);
  const clientDataJSON = Buffer.from(
    JSON.stringify({
      type: 'webauthn.get',
      challenge: o.challenge ?? options.challenge,
      origin: o.origin,
      crossOrigin: false,
    }),
  );
  const signature = sign('sha256', Buffer.concat([data, sha256(clientDataJSON)]), passkey.privateKey);
  const id = o.credentialId ?? passkey.credentialId;
  return {
    id: b64u(id),
    rawId: b64u(id),
    type: 'public-key',
    response: {
      clientDataJSON: b64u(clientDataJSON),
      authenticatorData: b64u(data),
      signature: b64u(signature),
      userHandle: passkey.userHandle,
    },
    authenticatorAttachment: 'platform',
    clientExtensionResults: {},
  };
}
