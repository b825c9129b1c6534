import { z } from 'zod';
import { PASSWORD_MAX } from './constants.js';

/**
 * Passkeys (WebAuthn, issue 23): the calls and their shapes. The options the server answers are the
 * WebAuthn JSON (`PublicKeyCredentialCreationOptionsJSON` / `...RequestOptionsJSON`) that
 * @simplewebauthn/browser hands to the browser as they are; what comes back is the browser's
 * `RegistrationResponseJSON` / `AuthenticationResponseJSON`, checked here for shape and size only
 * (the API's library verifies the content).
 */
export const PASSKEY_PATHS = {
  /** Signed in: the options for a new passkey (the password again: a session alone may be stolen). */
  registerOptions: '/api/profile/passkeys/register/options',
  /** Signed in: the browser's new credential; answers the stored passkey. */
  registerVerify: '/api/profile/passkeys/register/verify',
  list: '/api/profile/passkeys',
  rename: '/api/profile/passkeys/rename',
  /** The password again, as for turning two-factor off. */
  remove: '/api/profile/passkeys/remove',
  /** Signed out: a challenge for "Sign in with a passkey" and for a passkey as the second step after the password. */
  signInOptions: '/api/users/passkey/options',
  /** Signed out: the assertion alone signs in (a passkey is two factors by itself). */
  signIn: '/api/users/passkey/login',
} as const;

/**
 * The operator console's passkey calls: an object of their own, so the customer's bundle (which
 * imports PASSKEY_PATHS) carries no console path (staff.spec: a customer's pages load no console code).
 */
export const STAFF_PASSKEY_PATHS = {
  /** The challenge for a passkey as the second step of staff sign-in. */
  signInOptions: '/api/staff/session/passkey-options',
  list: '/api/staff/passkeys',
  registerOptions: '/api/staff/passkeys/register/options',
  registerVerify: '/api/staff/passkeys/register/verify',
  remove: '/api/staff/passkeys/remove',
} as const;

export const PASSKEY_NAME_MAX = 64;
/** Passkeys per account: enough for every device and a spare key (GitHub allows 10 security keys per kind). */
export const PASSKEYS_MAX = 20;

const b64url = (max: number, what: string) =>
  z
    .string({ error: `${what} is missing.` })
    .min(1, { error: `${what} is missing.` })
    .max(max, { error: `${what} is too long.` })
    .regex(/^[A-Za-z0-9_-]+$/, { error: `${what} is not valid.` });

const credentialId = b64url(1366, 'The credential id');
const TRANSPORTS = ['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'] as const;

const extensionResults = z.record(z.string(), z.unknown()).optional();

/** `RegistrationResponseJSON` (WebAuthn L3 §5.1.8), bounded. */
export const registrationResponse = z.object({
  id: credentialId,
  rawId: credentialId,
  type: z.literal('public-key', { error: 'Not a passkey.' }),
  response: z.object({
    clientDataJSON: b64url(4096, 'The client data'),
    attestationObject: b64url(32_768, 'The attestation'),
    authenticatorData: b64url(16_384, 'The authenticator data').optional(),
    transports: z
      .array(z.string().max(32))
      .max(10)
      .optional()
      .transform((t) =>
        t?.filter((x): x is (typeof TRANSPORTS)[number] => (TRANSPORTS as readonly string[]).includes(x)),
      ),
    publicKeyAlgorithm: z.number().int().min(-65_536).max(65_535).optional(),
    publicKey: b64url(4096, 'The public key').optional(),
  }),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: extensionResults,
});
export type RegistrationResponse = z.infer<typeof registrationResponse>;

/** `AuthenticationResponseJSON` (WebAuthn L3 §5.1.8), bounded. */
export const authenticationResponse = z.object({
  id: credentialId,
  rawId: credentialId,
  type: z.literal('public-key', { error: 'Not a passkey.' }),
  response: z.object({
    clientDataJSON: b64url(4096, 'The client data'),
    authenticatorData: b64url(16_384, 'The authenticator data'),
    signature: b64url(4096, 'The signature'),
    userHandle: b64url(128, 'The user handle').optional(),
  }),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: extensionResults,
});
export type AuthenticationResponse = z.infer<typeof authenticationResponse>;

export const passkeyName = z
  .string({ error: 'Give the passkey a name.' })
  .trim()
  .min(1, { error: 'Give the passkey a name.' })
  .max(PASSKEY_NAME_MAX, { error: `The name may not be longer than ${PASSKEY_NAME_MAX} characters.` })
  .regex(/^[^\p{Cc}\p{Cf}]*$/u, { error: 'The name may not hold control characters.' });

const password = z
  .string({ error: 'Enter your password.' })
  .min(1, { error: 'Enter your password.' })
  .max(PASSWORD_MAX);
const passkeyId = z.number({ error: 'Choose a passkey.' }).int().min(1).max(2_147_483_647);

export const passkeyRegisterOptionsBody = z.object({ password });
export const passkeyRegisterVerifyBody = z.object({
  response: registrationResponse,
  /** Optional: without one the passkey is named after its authenticator (or "Passkey"). */
  name: passkeyName.optional(),
});
export const passkeyRenameBody = z.object({ id: passkeyId, name: passkeyName });
export const passkeyRemoveBody = z.object({ id: passkeyId, password });
export const passkeySignInBody = z.object({ response: authenticationResponse });
/**
 * The options calls say what the challenge is for (the same challenge either way; a body that says
 * nothing, or anything else, is refused, so junk never stores a challenge).
 */
export const passkeyOptionsBody = z.strictObject({
  use: z.enum(['sign-in', 'autofill', 'second-step'], { error: 'Say what the passkey is for.' }),
});

/** The options the browser passes to navigator.credentials (opaque to the contract). */
export const passkeyOptions = z.record(z.string(), z.unknown());

export const passkey = z.object({
  id: z.number(),
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  /** Synced across the owner's devices (a "multi-device" credential) or bound to one authenticator. */
  synced: z.boolean(),
});
export type Passkey = z.infer<typeof passkey>;
export const passkeyList = z.object({ items: z.array(passkey) });
