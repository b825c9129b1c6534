import { z } from 'zod';
import { ATTRIBUTION_MAX } from './constants.js';
import { dbId } from './numbers.js';

export const currencyCode = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[A-Z]{3}$/, { error: 'The currency must be a 3-letter code.' });
// In constants.ts (zod-free): the checkout's shape checks read it too.
import { PROVIDERS } from './constants.js';
export { PROVIDERS, type PaymentProviderId } from './constants.js';

const tariffIdField = dbId({ coerce: true, error: 'The plan is required.' }).max(1_000_000);
const promoField = z
  .string()
  .trim()
  .max(40)
  .regex(/^[A-Za-z0-9_-]*$/, { error: 'The promo code is not valid.' })
  .optional();
const priceListField = z
  .string()
  .trim()
  .max(40)
  .regex(/^[a-z0-9-]+$/, { error: 'Unknown price list.' })
  .optional();

export const tariffPrice = z.object({
  tariffId: z.number(),
  key: z.string(),
  name: z.string(),
  periodDays: z.number().nullable(),
  isLifetime: z.boolean(),
  isTrial: z.boolean(),
  currency: z.string(),
  /** Minor units (cents). */
  amount: z.number(),
  /** The default-list price, for the struck-through "was" price. */
  listAmount: z.number(),
  discountPercent: z.number(),
  /** The price divided by the plan's months (planMonths), rounded to the minor unit; null for lifetime and short trials. */
  monthlyAmount: z.number().nullable(),
  /** The promo code in this plan's price, when it discounts this plan (a code may cover only some plans). */
  promo: z.object({ code: z.string(), percentOff: z.number() }).nullable().optional(),
});
export type TariffPrice = z.infer<typeof tariffPrice>;

export const promoInfo = z.object({ code: z.string(), percentOff: z.number() });

export const landingPriceListQuery = z.object({
  selectedPlan: z
    .string()
    .trim()
    .max(40)
    .regex(/^[a-z0-9-]*$/i, { error: 'Unknown plan set.' })
    .optional(),
  currency: currencyCode.optional(),
  referralID: z.string().trim().max(ATTRIBUTION_MAX).optional(),
  promocode: promoField,
});
export const landingPriceList = z.object({
  currency: z.string(),
  priceList: z.string(),
  plans: z.array(tariffPrice),
  promo: promoInfo.nullable(),
  /**
   * A discounted list (discount-15/25): seconds left of the visitor's one-day window, which the
   * server tracks in a signed cookie; null elsewhere. A list whose window has closed is answered
   * as the default list.
   */
  offerSecondsLeft: z.number().nullable().optional(),
});

export const guestPriceQuery = z.object({
  tariffId: tariffIdField.optional(),
  currency: currencyCode.optional(),
  promocode: promoField,
  priceList: priceListField,
});
export const guestPriceData = z.union([
  z.object({}).strict(),
  z.object({
    tariffId: z.number(),
    currency: z.string(),
    amount: z.number(),
    listAmount: z.number(),
    promo: promoInfo.nullable(),
    tariffName: z.string(),
  }),
]);

export const currencies = z.object({ currencies: z.array(z.string()), default: z.string() });

export const paymentSummary = z.object({
  id: z.string(),
  tariff_id: z.number(),
  tariff_name: z.string(),
  amount: z.number(),
  currency: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed', 'refunded']),
  provider: z.string(),
  created_at: z.string(),
  paid_at: z.string().nullable(),
});
export const planInfo = z.object({
  tariffName: z.string(),
  tariffKey: z.string(),
  expiresAt: z.string().nullable(),
  accountStatus: z.string(),
  /** processing while the latest checkout, under 30 minutes old, is still open at the provider (an older abandoned one does not count). */
  paymentStatus: z.enum(['processed', 'processing']),
  moneyBackDays: z.number(),
  payments: z.array(paymentSummary),
  /** The member's most recent checkout, whatever its state: how a page waiting for a payment learns its outcome. */
  lastPayment: paymentSummary.nullable().optional(),
});
export type PlanInfo = z.infer<typeof planInfo>;

export const createPaymentBody = z.object({
  tariffId: tariffIdField,
  currency: currencyCode,
  provider: z.enum(PROVIDERS, { error: 'Unknown payment provider.' }).default('sandbox'),
  /** Provider-specific method: Stripe payment method type, Payssion pm_id. */
  type: z
    .string()
    .trim()
    .max(40)
    .regex(/^[a-z0-9_]*$/, { error: 'Unknown payment method.' })
    .optional(),
  priceList: priceListField,
  promocode: promoField,
  /** Same key, same payment: a double-clicked Pay button never charges twice. */
  idempotencyKey: z
    .string()
    .trim()
    .min(8)
    .max(100)
    .regex(/^[A-Za-z0-9_-]+$/)
    .optional(),
  /** Where the provider sends the browser back: a path on this origin (or a registered brand host). */
  returnPath: z.string().max(2048).optional(),
  'g-recaptcha-response': z.string().max(4096).optional(),
  /** The buyer's UI language: a hosted page we serve (the sandbox) opens in it. */
  language: z.enum(['en', 'ru', 'zh']).optional(),
  /** Renew this plan automatically when the provider can charge again (absent: the brand's default). */
  autoRenew: z.boolean().optional(),
});
export type CreatePaymentBody = z.infer<typeof createPaymentBody>;

export const createPaymentResult = z.object({
  paymentId: z.string(),
  provider: z.string(),
  amount: z.number(),
  currency: z.string(),
  redirectUrl: z.string().optional(),
  clientSecret: z.string().optional(),
  publishableKey: z.string().optional(),
  /** Set when the provider charged at once without a page (a saved mandate): the web app polls getPlanInfo. */
  status: z.enum(['pending', 'succeeded', 'failed', 'refunded']).optional(),
});
export type CreatePaymentResult = z.infer<typeof createPaymentResult>;

export const paymentMethod = z.object({ provider: z.enum(PROVIDERS), type: z.string(), label: z.string() });
export const paymentMethods = z.object({ country: z.string(), currency: z.string(), methods: z.array(paymentMethod) });

export const ipInfo = z.object({ code: z.string(), currency: z.string() });

export const affiliateSessionBody = z.object({
  url: z.string().trim().max(2048),
  referralID: z.string().trim().min(1).max(ATTRIBUTION_MAX),
});
