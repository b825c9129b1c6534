import { z } from 'zod';

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
});
export type SubscriptionInfo = z.infer<typeof subscriptionInfo>;

export const setAutoRenewBody = z.object({
  enabled: z.boolean({ error: 'enabled must be true or false.' }),
});
export type SetAutoRenewBody = z.infer<typeof setAutoRenewBody>;
