import { randomBytes } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { PASSKEYS_MAX, type AuthenticationResponse, type Passkey, type RegistrationResponse } from '@warren/contract';
import type { Database } from '../../db/client.js';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { verifyPassword } from '../../lib/passwords.js';
import type { RateLimiter } from '../../lib/rate-limit.js';
import { hashToken, hmac } from '../../lib/secrets.js';
import { LIMITS, spend } from '../users/index.js';
import { type ChallengePurpose, type PasskeyRow, passkeysRepository } from './repository.js';

/**
 * The relying party a ceremony runs for: the brand the request came on, its origin from the brand
 * registry and the configuration (brands/origins.ts via plugins/context.ts), never the Host
 * header's text, so a forged Host can neither make the server accept another site's assertion nor
 * hand out options for another domain.
 */
export interface RelyingParty {
  /** The origin the browser must report (scheme://host[:port]). */
  origin: string;
  /** The RP ID: the origin's host name (WebAuthn scopes credentials to it and its parents). */
  rpID: string;
  /** Shown by the authenticator: the brand's product name. */
  name: string;
}

export function relyingPartyOf(origin: string, productName: string): RelyingParty {
  const url = new URL(origin);
  return { origin: url.origin, rpID: url.hostname, name: productName };
}

/** Ceremonies in flight live 5 minutes; the browser's own timeout is 2 (WebAuthn's recommended range). */
const CHALLENGE_TTL_MS = 5 * 60_000;
const CEREMONY_TIMEOUT_MS = 120_000;
/** COSE algorithms: EdDSA (-8), ES256 (-7), RS256 (-257). */
const SUPPORTED_ALGORITHMS = [-8, -7, -257];

const EXPIRED = 'This passkey request has expired. Please try again.';
const UNKNOWN = 'This passkey is not registered for this account.';
const NOT_VERIFIED = 'The passkey could not be verified. Please try again.';

const field = (name: string, message: string) => new ValidationError({ [name]: [message] });

/** The challenge in the browser's clientDataJSON, before anything else is looked at; undefined when unreadable. */
function challengeOf(clientDataJSON: string): string | undefined {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof data.challenge === 'string' && /^[A-Za-z0-9_-]{16,128}$/.test(data.challenge)
      ? data.challenge
      : undefined;
  } catch {
    return undefined;
  }
}

export function toPasskeyDto(row: PasskeyRow): Passkey {
  return {
    id: Number(row.id),
    name: row.name,
    createdAt: new Date(row.created_at).toISOString(),
    lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at).toISOString(),
    synced: row.device_type === 'multiDevice',
  };
}

export interface PasskeysDeps {
  db: Database;
  limiter: RateLimiter;
  /** APP_SECRET: a first passkey's user handle is an HMAC of the account id under it (opaque, 32 bytes). */
  appSecret: string;
}

/**
 * Passkeys (issue 23), the WebAuthn part shared by the customer's profile and sign-in and the
 * operator console. Decisions (as Google, GitHub and Proton do):
 * - A passkey is discoverable (resident key required) and user-verifying (PIN or biometrics), so it
 *   signs in alone, with no email or password: it is two factors by itself and satisfies two-factor
 *   sign-in. As the second step after a password it needs user presence only, like a security key.
 * - Attestation 'none': we do not restrict which authenticators customers use, and keep no
 *   attestation data. No metadata lookups.
 * - Every challenge is stored hashed, lives 5 minutes, is bound to what asked for it (the session
 *   for a registration, the browser's id cookie for a sign-in, the staff console's XSRF key for a
 *   staff sign-in) and to its purpose, and is spent by one DELETE before the signature is checked:
 *   single use whatever the outcome, and two parallel verifications cannot share one.
 * - The signature counter may only move forward (a cloned authenticator shows as a counter that
 *   does not); synced passkeys keep 0, which is allowed while both stay 0.
 */
export function passkeysService({ db, limiter, appSecret }: PasskeysDeps) {
  const repo = passkeysRepository(db);
  /**
   * The WebAuthn user handle: the one the account's passkeys already carry, else an HMAC of its id
   * (the options and the verification a moment later compute the same one; it is stored with the
   * passkey, so a later APP_SECRET rotation changes nothing).
   */
  const handleOf = async (userId: number) =>
    (await repo.userHandleOf(userId)) ?? hmac(`webauthn-user-handle:${appSecret}`, String(userId));

  async function newChallenge(purpose: ChallengePurpose, binding: string, userId: number | null): Promise<string> {
    const challenge = randomBytes(32).toString('base64url');
    await repo.insertChallenge({
      hash: hashToken(challenge),
      purpose,
      binding: hashToken(binding),
      userId,
      expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS),
    });
    return challenge;
  }

  /** Reads and spends the challenge the browser signed; throws on `fieldName` when it is not a live one of this purpose and binding. */
  async function spendChallenge(
    clientDataJSON: string,
    purpose: ChallengePurpose,
    binding: string,
    fieldName: string,
  ): Promise<{ challenge: string; userId: number | null }> {
    const challenge = challengeOf(clientDataJSON);
    if (!challenge) throw field(fieldName, NOT_VERIFIED);
    const row = await repo.consumeChallenge(hashToken(challenge), purpose, hashToken(binding));
    if (!row) throw field(fieldName, EXPIRED);
    return { challenge, userId: row.user_id };
  }

  return {
    /** The account's password again, on the session's re-authentication budget (the profile's own rule). */
    async checkPassword(user: { id: number; password_hash: string }, sessionKey: string, password: string) {
      await spend(limiter, LIMITS.reauthPerSession, sessionKey);
      if (!(await verifyPassword(user.password_hash, password))) throw field('password', 'The password is incorrect.');
      await limiter.reset(LIMITS.reauthPerSession, sessionKey);
    },

    async list(userId: number): Promise<Passkey[]> {
      return (await repo.list(userId)).map(toPasskeyDto);
    },

    count: (userId: number) => repo.count(userId),

    /** Options for a new passkey of a signed-in account; `binding` names the session asking. */
    async registrationOptions(
      user: { id: number; email: string; first_name?: string },
      binding: string,
      rp: RelyingParty,
    ): Promise<Record<string, unknown>> {
      const existing = await repo.list(user.id);
      if (existing.length >= PASSKEYS_MAX)
        throw field('name', `An account can hold ${PASSKEYS_MAX} passkeys. Remove one first.`);
      const handle = await handleOf(user.id);
      const challenge = await newChallenge('register', binding, user.id);
      const options = await generateRegistrationOptions({
        rpName: rp.name,
        rpID: rp.rpID,
        userName: user.email,
        userDisplayName: user.first_name || user.email,
        userID: Buffer.from(handle, 'base64url'),
        challenge: Buffer.from(challenge, 'base64url'),
        timeout: CEREMONY_TIMEOUT_MS,
        attestationType: 'none',
        // The authenticator refuses to make a second passkey for this account (it would replace the first).
        excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
        // EdDSA, ES256, RS256: what authenticators make today. The post-quantum ML-DSA ones the library
        // offers by default rest on WebCrypto that Node still calls experimental.
        supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
      });
      return options as unknown as Record<string, unknown>;
    },

    /** Verifies the browser's new credential against the session's challenge and stores it. */
    async register(
      userId: number,
      binding: string,
      rp: RelyingParty,
      response: RegistrationResponse,
      name: string | undefined,
    ): Promise<Passkey> {
      const { challenge, userId: owner } = await spendChallenge(
        response.response.clientDataJSON,
        'register',
        binding,
        'response',
      );
      if (owner !== userId) throw field('response', EXPIRED);
      let info;
      try {
        const v = await verifyRegistrationResponse({
          response: response as unknown as RegistrationResponseJSON,
          expectedChallenge: challenge,
          expectedOrigin: rp.origin,
          expectedRPID: rp.rpID,
          requireUserVerification: true,
          supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
        });
        if (!v.verified) throw new Error('not verified');
        info = v.registrationInfo;
      } catch {
        throw field('response', NOT_VERIFIED);
      }
      const handle = await handleOf(userId);
      const row = await db.transaction((tx) =>
        passkeysRepository(tx).insert(
          {
            userId,
            credentialId: info.credential.id,
            publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
            counter: info.credential.counter,
            transports: response.response.transports ?? [],
            name: name?.trim() || 'Passkey',
            userHandle: handle,
            deviceType: info.credentialDeviceType,
            backedUp: info.credentialBackedUp,
          },
          PASSKEYS_MAX,
        ),
      );
      if (row === 'exists')
        throw new ConflictError('This passkey is registered already.', {
          response: ['This passkey is registered already.'],
        });
      if (row === 'full') throw field('name', `An account can hold ${PASSKEYS_MAX} passkeys. Remove one first.`);
      return toPasskeyDto(row);
    },

    async rename(userId: number, id: number, name: string): Promise<void> {
      if (!(await repo.rename(userId, id, name))) throw new NotFoundError('No such passkey.');
    },

    /** Removes one of the account's passkeys; answers its name (for the notice). Another account's id is 404. */
    async remove(userId: number, id: number): Promise<string> {
      const row = await repo.remove(userId, id);
      if (!row) throw new NotFoundError('No such passkey.');
      return row.name;
    },

    /**
     * Options for an assertion: no allowCredentials (every passkey is discoverable, and naming the
     * account's credentials before it is proved would tell a stranger which ones it has).
     */
    async assertionOptions(
      purpose: Exclude<ChallengePurpose, 'register'>,
      binding: string,
      rp: RelyingParty,
    ): Promise<Record<string, unknown>> {
      const challenge = await newChallenge(purpose, binding, null);
      const options = await generateAuthenticationOptions({
        rpID: rp.rpID,
        challenge: Buffer.from(challenge, 'base64url'),
        timeout: CEREMONY_TIMEOUT_MS,
        userVerification: 'required',
      });
      return options as unknown as Record<string, unknown>;
    },

    /**
     * Verifies an assertion: the challenge first (spent whatever follows), then the credential, which
     * must belong to `expectUserId` when given (the second step after a password), its user handle,
     * the signature over the browser's data for this origin and RP ID, and a counter that moved
     * forward. Answers the account and the passkey. Every failure is a 422 on `fieldName`.
     */
    async verifyAssertion(o: {
      purpose: Exclude<ChallengePurpose, 'register'>;
      binding: string;
      rp: RelyingParty;
      response: AuthenticationResponse;
      /** The account the assertion must be of (second factor); undefined: any (passwordless sign-in). */
      expectUserId?: number;
      /** Passwordless sign-in needs user verification; a second step after the password needs presence only. */
      requireUserVerification: boolean;
      fieldName: string;
    }): Promise<{ userId: number; passkeyId: number }> {
      const { challenge } = await spendChallenge(o.response.response.clientDataJSON, o.purpose, o.binding, o.fieldName);
      const row = await repo.byCredentialId(o.response.id);
      if (!row || (o.expectUserId !== undefined && row.user_id !== o.expectUserId)) throw field(o.fieldName, UNKNOWN);
      if (o.response.response.userHandle !== undefined && o.response.response.userHandle !== row.user_handle)
        throw field(o.fieldName, UNKNOWN);
      let info;
      try {
        const v = await verifyAuthenticationResponse({
          response: o.response as unknown as AuthenticationResponseJSON,
          expectedChallenge: challenge,
          expectedOrigin: o.rp.origin,
          expectedRPID: o.rp.rpID,
          credential: {
            id: row.credential_id,
            publicKey: new Uint8Array(Buffer.from(row.public_key, 'base64url')),
            counter: Number(row.counter),
            transports: row.transports,
          },
          requireUserVerification: o.requireUserVerification,
        });
        if (!v.verified) throw new Error('not verified');
        info = v.authenticationInfo;
      } catch {
        throw field(o.fieldName, NOT_VERIFIED);
      }
      if (!(await repo.recordUse(Number(row.id), info.newCounter, info.credentialBackedUp)))
        throw field(o.fieldName, NOT_VERIFIED);
      return { userId: row.user_id, passkeyId: Number(row.id) };
    },
  };
}
export type PasskeysService = ReturnType<typeof passkeysService>;
