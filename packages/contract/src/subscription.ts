import { z } from 'zod';
import { createPaymentResult } from './billing.js';
import { PROVIDERS } from './constants.js';
import { dbId } from './numbers.js';

// The customer's subscription (issue 13): what renews, when, at what price and with what.
// GET /api/billing/subscription answers it; POST /api/billing/subscription/autoRenew turns
// renewal on or off and answers the same object.

export const SUBSCRIPTION_STATUSES = ['active', 'expired', 'free'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const subscriptionInfo = z.object({
  plan: z.object({ tariffKey: z.string(), tariffName: z.string(), lifetime: z.boolean() }),
  status: z.enum(SUBSCRIPTION_STATUSES),
  /** ISO time the paid period ends; null for free accounts and lifetime plans. */
  paidUntil: z.string().nullable(),
  /** The customer's choice (false while it cannot renew). */
  autoRenew: z.boolean(),
  /** Whether renewal can be turned on: a provider that can charge again holds a usable saved method, and the plan is not lifetime. */
  canAutoRenew: z.boolean(),
  /** ISO time the next renewal is charged (ahead of paidUntil); null when it will not renew. */
  renewsAt: z.string().nullable(),
  /** The next renewal's price (minor units, regular price list); null when it will not renew. */
  nextCharge: z.object({ amountMinor: z.number(), currency: z.string() }).nullable(),
  /** The saved method as the provider reports it ("Visa •••• 4242") or the provider's name. */
  paymentMethod: z.object({ provider: z.string(), label: z.string() }).nullable(),
  /** Why the last renewal attempt failed (the provider's message), while it is unresolved. */
  lastRenewalError: z.string().nullable(),
  /** The saved method can be changed without buying again (the provider has its own page for it: Stripe, the sandbox). */
  canUpdateMethod: z.boolean().default(false),
  /**
   * A move to a shorter period, taken at the next renewal (issue 23): the plan it becomes, when, and
   * what that renewal charges. Cancellable (POST /api/billing/subscription/switch/cancel).
   */
  scheduledChange: z
    .object({
      tariffId: z.number(),
      tariffKey: z.string(),
      tariffName: z.string(),
      effectiveAt: z.string(),
      nextCharge: z.object({ amountMinor: z.number(), currency: z.string() }).nullable(),
    })
    .nullable()
    .default(null),
});
export type SubscriptionInfo = z.infer<typeof subscriptionInfo>;

export const setAutoRenewBody = z.object({
  enabled: z.boolean({ error: 'enabled must be true or false.' }),
});
export type SetAutoRenewBody = z.infer<typeof setAutoRenewBody>;

// Switching plans (issue 23): GET /api/billing/subscription/switch/options lists the periods the
// member can move to, each with its quote; POST /api/billing/subscription/switch starts one (a
// checkout for a longer period, a scheduled change for a shorter one); .../switch/cancel drops a
// scheduled change. The rule is the API's modules/billing/plan-switch.ts.

export const SWITCH_REFUSALS = [
  'not-active',
  'lifetime',
  'same-plan',
  'not-switchable',
  'current-not-switchable',
  'no-renewal',
  'credit-covers',
  'renewal-pending',
] as const;
export type SwitchRefusalReason = (typeof SWITCH_REFUSALS)[number];

export const switchQuote = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('now'),
    currency: z.string(),
    /** The new plan's regular price. */
    priceMinor: z.number(),
    /** The unused part of the current period, credited (rounded down to the minor unit). */
    creditMinor: z.number(),
    /** What is charged now: price − credit. */
    chargeMinor: z.number(),
    /** Unused time not credited as money (a grant, another currency), added after the new period, in days. */
    carriedDays: z.number(),
    periodStart: z.string(),
    periodEnd: z.string(),
  }),
  z.object({
    kind: z.literal('scheduled'),
    currency: z.string(),
    effectiveAt: z.string(),
    nextChargeMinor: z.number(),
  }),
  z.object({ kind: z.literal('refused'), reason: z.enum(SWITCH_REFUSALS) }),
]);
export type SwitchQuote = z.infer<typeof switchQuote>;

export const switchOption = z.object({
  tariffId: z.number(),
  tariffKey: z.string(),
  tariffName: z.string(),
  periodDays: z.number(),
  quote: switchQuote,
});
export const switchOptions = z.object({
  /** The plan now and the currency the member pays in. */
  currentTariffKey: z.string(),
  currency: z.string().nullable(),
  options: z.array(switchOption),
  /** Providers that can take the payment for a switch to a longer period. */
  providers: z.array(z.enum(PROVIDERS)),
});
export type SwitchOptions = z.infer<typeof switchOptions>;

export const switchPlanBody = z.object({
  tariffId: dbId({ error: 'The plan is required.' }).max(1_000_000),
  /** The provider that takes the payment (a longer period); ignored for a scheduled change. */
  provider: z.enum(PROVIDERS, { error: 'Unknown payment provider.' }).optional(),
  type: z
    .string()
    .trim()
    .max(40)
    .regex(/^[a-z0-9_]*$/, { error: 'Unknown payment method.' })
    .optional(),
  /** The charge the member was shown (minor units): a quote that moved since is refused (409), never charged. */
  expectedChargeMinor: z.number().int().min(0).max(100_000_000).optional(),
  returnPath: z.string().max(2048).optional(),
  language: z.enum(['en', 'ru', 'zh']).optional(),
});
export type SwitchPlanBody = z.infer<typeof switchPlanBody>;

export const switchPlanResult = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('checkout'), quote: switchQuote, payment: createPaymentResult }),
  z.object({ kind: z.literal('scheduled'), quote: switchQuote, subscription: subscriptionInfo }),
]);
export type SwitchPlanResult = z.infer<typeof switchPlanResult>;

/** POST /api/billing/subscription/paymentMethod/update: the provider's page to save a new card (nothing charged). */
export const methodUpdateStart = z.object({ redirectUrl: z.string() });
export type MethodUpdateStart = z.infer<typeof methodUpdateStart>;
