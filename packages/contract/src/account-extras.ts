import { z } from 'zod';
import { LANGUAGES, NAME_MAX, PASSWORD_MAX } from './constants.js';
import { dbId } from './numbers.js';
import { NAME_TEXT, NAME_TEXT_MESSAGE, password } from './account.js';

// --- features (spec section 3 Feature, section 7 setup/features/*) ---------------------------
export const feature = z.object({ id: z.number(), name: z.string(), isEnabled: z.boolean(), premium: z.boolean() });
export type Feature = z.infer<typeof feature>;
export const featureList = z.object({ items: z.array(feature) });
export const featureStateBody = z.object({
  id: dbId({ coerce: true, error: 'The feature is required.' }).max(1_000_000),
  state: z
    .union([z.boolean(), z.literal(0), z.literal(1)], { error: 'The state must be on or off.' })
    .transform((v) => v === true || v === 1),
});
export const featureStateResult = z.object({
  result: z.boolean(),
  data: z.object({ id: z.number(), isEnabled: z.boolean() }),
});

// --- the ad blocker's categories (issue 23) -------------------------------------------------
/**
 * What the ad blocker can block, as nodes load it (one operator blocklist per category). The
 * switch (features/state) stays the on/off of the whole blocker; a customer who never chose
 * categories gets AD_BLOCK_DEFAULT, which is what the switch meant before categories existed.
 */
export const AD_BLOCK_CATEGORIES = ['ads', 'trackers', 'malware', 'adult', 'gambling'] as const;
export type AdBlockCategory = (typeof AD_BLOCK_CATEGORIES)[number];
export const AD_BLOCK_DEFAULT: readonly AdBlockCategory[] = ['ads', 'trackers'];
export const AD_BLOCK_PATHS = { categories: '/api/setup/features/categories' } as const;

/** Sorted in AD_BLOCK_CATEGORIES order, without repeats. */
export function sortCategories(list: readonly AdBlockCategory[]): AdBlockCategory[] {
  return AD_BLOCK_CATEGORIES.filter((c) => list.includes(c));
}

export const adBlockCategory = z.enum(AD_BLOCK_CATEGORIES, { error: 'Unknown category.' });
export const adBlockCategoriesBody = z.object({
  categories: z
    .array(adBlockCategory, { error: 'The categories must be a list.' })
    .min(1, { error: 'Pick at least one category, or switch the ad blocker off.' })
    .max(AD_BLOCK_CATEGORIES.length * 2, { error: 'Too many categories.' })
    .transform((l) => sortCategories(l)),
});
export type AdBlockCategoriesBody = z.infer<typeof adBlockCategoriesBody>;
export const adBlockSettings = z.object({
  /** The switch (the same as the ad blocker's isEnabled in features/get). */
  enabled: z.boolean(),
  categories: z.array(adBlockCategory),
});
export type AdBlockSettings = z.infer<typeof adBlockSettings>;

// --- profile ------------------------------------------------------------------------------
export const profile = z.object({
  firstName: z.string(),
  secondName: z.string(),
  email: z.string(),
  language: z.enum(LANGUAGES),
  marketingEmails: z.boolean(),
  twoFactorEnabled: z.boolean(),
  recoveryCodesLeft: z.number(),
});
export type Profile = z.infer<typeof profile>;
const nameField = z
  .string()
  .trim()
  .max(NAME_MAX, { error: `At most ${NAME_MAX} characters.` })
  .regex(NAME_TEXT, { error: NAME_TEXT_MESSAGE });
export const profileUpdateBody = z.object({
  firstName: nameField.optional(),
  secondName: nameField.optional(),
  language: z.enum(LANGUAGES).optional(),
});
export const changePasswordBody = z
  .object({
    currentPassword: z.string().min(1, { error: 'Enter your current password.' }).max(PASSWORD_MAX),
    password,
    password_confirmation: z.string().max(PASSWORD_MAX),
  })
  .refine((v) => v.password === v.password_confirmation, {
    path: ['password_confirmation'],
    error: 'The password confirmation does not match.',
  });
/** `token` is the one from the mailed set-new-pass link (users/setNewPassword/sendLink): a session alone cannot set a password. */
export const setNewPasswordBody = z
  .object({
    token: z.string().trim().min(1).max(256).optional(),
    password,
    password_confirmation: z.string().max(PASSWORD_MAX),
  })
  .refine((v) => v.password === v.password_confirmation, {
    path: ['password_confirmation'],
    error: 'The password confirmation does not match.',
  });
/** Email preferences (spec: profile/email/unsubscribe; shape not shown): marketing mail on or off. */
export const emailPreferencesBody = z.object({ marketing: z.boolean({ error: 'Choose on or off.' }) });
export const session = z.object({
  id: z.number(),
  current: z.boolean(),
  userAgent: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string(),
});
export const sessionList = z.object({ items: z.array(session) });

// --- two-factor sign-in -------------------------------------------------------------------
export const twoFactorSetup = z.object({ secret: z.string(), otpauthUrl: z.string() });
export const twoFactorCodeBody = z.object({
  code: z
    .string()
    .trim()
    .regex(/^\d{6}$/, { error: 'Enter the 6-digit code.' }),
});
export const twoFactorEnabled = z.object({ recoveryCodes: z.array(z.string()) });
export const twoFactorDisableBody = z.object({
  password: z.string().min(1, { error: 'Enter your password.' }).max(PASSWORD_MAX),
  /** A current authenticator code or an unused recovery code. */
  code: z
    .string({ error: 'Enter a code from your authenticator app or a recovery code.' })
    .trim()
    .min(6, { error: 'Enter a code from your authenticator app or a recovery code.' })
    .max(32),
});

// --- affiliate and rewards ---------------------------------------------------------------
export const affiliateStats = z.object({
  referralId: z.string(),
  link: z.string(),
  clicks: z.number(),
  signups: z.number(),
  payingReferrals: z.number(),
  commissionPercent: z.number(),
  earnings: z.array(z.object({ currency: z.string(), amount: z.number() })),
  portalUrl: z.string().nullable(),
});
export const rewardEntry = z.object({
  id: z.number(),
  days: z.number(),
  reason: z.enum(['invited-friend', 'invited-by-friend']),
  friend: z.string(),
  createdAt: z.string(),
});
export const rewards = z.object({
  friendId: z.string(),
  link: z.string(),
  daysPerFriend: z.number(),
  totalDays: z.number(),
  invited: z.number(),
  ledger: z.array(rewardEntry),
});
