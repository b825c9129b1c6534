import { z } from 'zod';
import { annihilationBody, onetimeLinkQuery } from './account.js';
import {
  changePasswordBody,
  profileUpdateBody,
  setNewPasswordBody,
  twoFactorCodeBody,
  twoFactorDisableBody,
} from './account-extras.js';
import { createPaymentBody } from './billing.js';
import { openvpnConfigQuery } from './services.js';
import { langCodeQuery } from './locations.js';

/**
 * Bodies of the restricted calls (README: Restricted hosts). On a brand with mainProduct false
 * every call that carries an email, a password, a session token, a one-time code or a payment's
 * details travels as encrypted text (base64(iv || AES-256-GCM ciphertext || tag) of the JSON
 * below, under the brand's key), and the plain JSON call is refused there. A signed-in call
 * carries its session token inside the body as `token` (`sessionToken` where `token` is already a
 * link's), never in an Authorization header; a
 * rotated token comes back inside the encrypted answer (`rotatedToken`).
 */
export const sessionToken = z
  .string({ error: 'The session token is required.' })
  .min(20, { error: 'The session token is not valid.' })
  .max(256);

/** The session alone (restrictedUserCheck, the profile, two-factor setup, the one-time link). */
export const restrictedSessionBody = z.object({ token: sessionToken });

/** The profile's update answers the profile, its email with it. */
export const restrictedProfileUpdateBody = profileUpdateBody.extend({ token: sessionToken });
export const restrictedChangePasswordBody = changePasswordBody.safeExtend({ token: sessionToken });
export const restrictedAnnihilationBody = annihilationBody.extend({ token: sessionToken });
export const restrictedTwoFactorEnableBody = twoFactorCodeBody.extend({ token: sessionToken });
export const restrictedTwoFactorDisableBody = twoFactorDisableBody.extend({ token: sessionToken });
/** The VPN's own credentials (OpenVPN/SOCKS5, stealth): the page's language, the session. */
export const restrictedLangCodeBody = langCodeQuery.extend({ token: sessionToken });

/** An .ovpn file (the Keenetic variant holds the password): the answer is `{ data: { fileName, text } }`. */
export const restrictedOpenvpnConfigBody = openvpnConfigQuery
  .extend(langCodeQuery.shape)
  .extend({ token: sessionToken });

/** The spec's three provider calls (the provider is the path's) and restrictedCreatePayment (provider in the body). */
export const restrictedPaymentBody = createPaymentBody.omit({ provider: true }).extend({ token: sessionToken });
export const restrictedCreatePaymentBody = createPaymentBody.extend({ token: sessionToken });
export const restrictedOnetimeLinkBody = onetimeLinkQuery.extend({ token: sessionToken });

/**
 * users/setNewPassword's body already names the mailed link's token `token` (its form and field
 * errors use that name): here the session travels as `sessionToken`.
 */
export const restrictedSetNewPasswordBody = setNewPasswordBody.safeExtend({ sessionToken });

/** Every restricted path, for the web app and the tests that check none of them answers in clear. */
export const RESTRICTED_PATHS = {
  login: 'users/restrictedLogin',
  register: 'users/restrictedRegister',
  requestResetPassword: 'users/restrictedRequestResetPassword',
  resetPassword: 'users/restrictedResetPassword',
  userCheck: 'users/restrictedUserCheck',
  verifyUser: 'users/restrictedVerifyUser',
  resendVerificationByLink: 'users/restrictedResendVerificationByLink',
  onetimeLogin: 'users/restrictedOnetimeLogin',
  onetimeLink: 'users/restrictedOnetimeLinkByPromo',
  annihilation: 'users/restrictedAnnihilation',
  setNewPassword: 'users/restrictedSetNewPassword',
  profile: 'profile/restrictedGet',
  updateProfile: 'profile/restrictedUpdate',
  changePassword: 'profile/restrictedPassword',
  twoFactorSetup: 'profile/2fa/restrictedSetup',
  twoFactorEnable: 'profile/2fa/restrictedEnable',
  twoFactorDisable: 'profile/2fa/restrictedDisable',
  services: 'setup/services/restrictedGet',
  resetServiceCredentials: 'setup/services/credentials/restrictedReset',
  openvpnConfig: 'setup/openvpn/restrictedConfig',
  stealth: 'setup/stealth/restrictedGet',
  resetStealth: 'setup/stealth/restrictedReset',
  stripePayment: 'billing/getRestrictedStripePayment',
  payssionPayment: 'billing/getRestrictedPayssionPaymentData',
  cardlinkPayment: 'billing/getRestrictedCardlinkPaymentData',
  createPayment: 'billing/restrictedCreatePayment',
  envelope: 'restrictedCall',
} as const;

/**
 * The envelope (README: Restricted hosts): on a restricted host every other signed-in call goes
 * through `POST /api/restrictedCall` as one encrypted body naming the plain call (method, path,
 * query, JSON body) with the session token inside, and its answer (status, a few headers, the
 * body, a rotated token) comes back sealed. The API runs the named call as it would run it
 * directly on this host; a plain call with a bearer header is refused there.
 */
export const ENVELOPE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** Request headers an enveloped call may carry besides what the envelope's own request says (its Host, cookies, language). */
export const ENVELOPE_REQUEST_HEADERS = ['idempotency-key'] as const;
/** Answer headers that travel inside the sealed answer (the rest, and the rotated token's header, stay behind). */
export const ENVELOPE_ANSWER_HEADERS = [
  'content-type',
  'content-disposition',
  'cache-control',
  'retry-after',
  'content-language',
] as const;
/**
 * The path of an API call as the router registers it: `/api/` then segments of unreserved
 * characters, none starting with a dot. No percent-escapes (`/%61pi/…`), no `.` or `..`
 * segments, no empty segment, no trailing slash: one spelling per call.
 */
export const ENVELOPE_PATH = /^\/api(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]{0,199})+$/;

export const restrictedEnvelopeBody = z
  .object({
    token: sessionToken,
    method: z.enum(ENVELOPE_METHODS, { error: 'The method is not one the envelope carries.' }),
    path: z
      .string({ error: 'The path is required.' })
      .max(512, { error: 'The path is too long.' })
      .regex(ENVELOPE_PATH, { error: 'The path is not a call of this API.' }),
    /** The query string without its `?`. */
    query: z
      .string()
      .max(4096, { error: 'The query is too long.' })
      .regex(/^[^#\s?][^#\s]*$/, { error: 'The query is not valid.' })
      .optional(),
    /** The JSON body of a POST, PUT, PATCH or DELETE. */
    body: z.unknown().optional(),
    headers: z
      .strictObject(
        { 'idempotency-key': z.string().min(1).max(200).optional() },
        { error: 'Only an idempotency key may travel as a header.' },
      )
      .optional(),
  })
  .strict();
export type RestrictedEnvelope = z.infer<typeof restrictedEnvelopeBody>;

/** The sealed answer of the envelope: the named call's status, headers and body (text, or base64 when binary). */
export interface RestrictedEnvelopeAnswer {
  status: number;
  headers: Partial<Record<(typeof ENVELOPE_ANSWER_HEADERS)[number], string>>;
  body?: string;
  bodyBase64?: string;
  rotatedToken?: string;
}
