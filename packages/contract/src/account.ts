import { z } from 'zod';
import { dbId } from './numbers.js';
import { ATTRIBUTION_MAX, EMAIL_MAX, LANGUAGES, NAME_MAX, PASSWORD_MAX, PASSWORD_MIN } from './constants.js';
import { authenticationResponse } from './passkeys.js';

const attribution = z.string().trim().max(ATTRIBUTION_MAX).optional();
const captchaResponse = z.string().max(4096).optional();

/**
 * The captcha's answers, on the g-recaptcha-response field (the web app translates them by this
 * text): the provider refused the token (solve it again), or could not be asked (try later).
 */
export const CAPTCHA_FIELD = 'g-recaptcha-response';
export const CAPTCHA_FAILED_MESSAGE = 'The captcha check failed. Please try again.';
export const CAPTCHA_UNAVAILABLE_MESSAGE =
  'The captcha check could not be completed right now. Please try again in a few minutes.';

export const email = z
  .string({ error: 'The email is required.' })
  .trim()
  .toLowerCase()
  .max(EMAIL_MAX, { error: `The email may not be longer than ${EMAIL_MAX} characters.` })
  .pipe(z.email({ error: 'The email must be a valid email address.' }));

export const password = z
  .string({ error: 'The password is required.' })
  .min(PASSWORD_MIN, { error: `The password must be at least ${PASSWORD_MIN} characters.` })
  .max(PASSWORD_MAX, { error: `The password may not be longer than ${PASSWORD_MAX} characters.` });

/** Adds the "confirmation must match" rule, reported on password_confirmation (spec section 5). */
function withConfirmation<T extends z.ZodObject<{ password: typeof password; password_confirmation: z.ZodString }>>(
  schema: T,
) {
  return schema.refine((v) => v.password === v.password_confirmation, {
    path: ['password_confirmation'],
    error: 'The password confirmation does not match.',
  });
}

/** Names are one line of text: no line breaks, control characters or bidi overrides (they forge what mails and lists show). */
export const NAME_TEXT = /^[^\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]*$/u;
export const NAME_TEXT_MESSAGE = 'The name may not contain line breaks or control characters.';

export const accountStatus = z.enum(['Active', 'Inactive', 'Suspended']);
export type AccountStatus = z.infer<typeof accountStatus>;

export const user = z.object({
  id: z.number().int(),
  email: z.string(),
  verified: z.union([z.literal(0), z.literal(1)]),
  accountStatus,
  firstName: z.string(),
  secondName: z.string(),
  language: z.enum(LANGUAGES),
  isPostAffiliateAvailable: z.boolean(),
  isWgSectionAvailable: z.boolean(),
  twoFactorEnabled: z.boolean(),
  subscriptionData: z.object({
    tariffName: z.string(),
    tariffKey: z.string(),
    expiresAt: z.string().nullable(),
  }),
});
export type User = z.infer<typeof user>;

export const authResult = z.object({ user, token: z.string() });
export type AuthResult = z.infer<typeof authResult>;

export const loginBody = z.object({
  email,
  password: z
    .string({ error: 'The password is required.' })
    .min(1, { error: 'The password is required.' })
    .max(PASSWORD_MAX),
  'g-recaptcha-response': captchaResponse,
  cid: attribution,
  cid4: attribution,
  voluumID: attribution,
  /** Restricted variant only. */
  gaCid: attribution,
  /** Second factor, asked for when the account has two-factor sign-in on. */
  otp: z.string().trim().max(32).optional(),
  /** Or the second factor as a passkey assertion (issue 23), for a challenge from users/passkey/options. */
  passkey: authenticationResponse.optional(),
});
export type LoginBody = z.infer<typeof loginBody>;

export const registerFields = z.object({
  name: z
    .string()
    .trim()
    .max(NAME_MAX, { error: `The name may not be longer than ${NAME_MAX} characters.` })
    .regex(NAME_TEXT, { error: NAME_TEXT_MESSAGE })
    .optional(),
  email,
  password,
  password_confirmation: z.string({ error: 'The password confirmation is required.' }).max(PASSWORD_MAX),
  referralID: attribution,
  friendID: attribution,
  'g-recaptcha-response': captchaResponse,
  cid: attribution,
  cid4: attribution,
  language: z.enum(LANGUAGES).optional(),
  langCode: z.enum(LANGUAGES).optional(),
  clickID: attribution,
  isOneStepPayment: z.union([z.boolean(), z.literal(0), z.literal(1)]).optional(),
  vcommID: attribution,
  myLeadID: attribution,
  disableEmail: z.union([z.boolean(), z.literal(0), z.literal(1)]).optional(),
  promocode: attribution,
  voluumID: attribution,
  utmSource: attribution,
  utmMedium: attribution,
  utmCampaign: attribution,
  referrer: z.string().trim().max(2048).optional(),
  papReferralID: attribution,
  /** Restricted variant only. */
  isRestrictedDomain: z.union([z.boolean(), z.literal(0), z.literal(1)]).optional(),
});
export const registerBody = withConfirmation(registerFields);
export type RegisterBody = z.infer<typeof registerBody>;

export const requestResetBody = z.object({ email, 'g-recaptcha-response': captchaResponse });
export type RequestResetBody = z.infer<typeof requestResetBody>;

const userIdField = dbId({ coerce: true, error: 'The user id is required.' });
const emailToken = z.string({ error: 'The token is required.' }).trim().min(1).max(256);

export const resetPasswordBody = withConfirmation(
  z.object({ userId: userIdField, token: emailToken, password, password_confirmation: z.string().max(PASSWORD_MAX) }),
);
export type ResetPasswordBody = z.infer<typeof resetPasswordBody>;

export const verifyUserBody = z.object({
  userId: userIdField,
  token: emailToken,
  cid: attribution,
  clickID: attribution,
  cid4: attribution,
});
export type VerifyUserBody = z.infer<typeof verifyUserBody>;

export const sessionSetBody = z.object({
  sessionID: z.string().trim().min(1).max(ATTRIBUTION_MAX),
  voluumID: attribution,
});

export const onetimeLoginBody = z.object({ userID: userIdField, token: emailToken });
export const onetimeLinkQuery = z.object({ promocode: z.string().trim().max(ATTRIBUTION_MAX).optional() });
export const onetimeLink = z.object({ url: z.string(), expiresAt: z.string() });

export const annihilationBody = z.object({
  password: z
    .string({ error: 'The password is required.' })
    .min(1, { error: 'The password is required.' })
    .max(PASSWORD_MAX),
});

export const restrictedUserCheckBody = z.object({ token: z.string().min(1).max(256) });

/** Message answers (`{ data: { ok }, message }`) for calls whose answer the spec does not show. */
export const okMessage = z.object({ data: z.object({ ok: z.literal(true) }), message: z.string() });
