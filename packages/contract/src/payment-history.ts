import { z } from 'zod';

// The customer's payment history, receipts and money-back requests (issue 13).
//   GET  /api/billing/payments                      → { data: PaymentHistory }
//   GET  /api/billing/payments/:publicId/receipt    → application/pdf (own payments only)
//   POST /api/billing/payments/:publicId/refund     → { data: RefundAnswer } (the list after it and the outcome; inside MONEY_BACK_DAYS)

export const PAYMENT_HISTORY_KINDS = ['purchase', 'renewal', 'switch', 'grant', 'refund'] as const;
export type PaymentHistoryKind = (typeof PAYMENT_HISTORY_KINDS)[number];
/**
 * expired: a checkout left unpaid for CHECKOUT_EXPIRES_MS (an abandoned checkout). A reading, not a
 * stored state: the payment stays pending, so a provider's late confirmation still applies it
 * and the entry then reads succeeded.
 */
export const PAYMENT_HISTORY_STATUSES = ['pending', 'succeeded', 'failed', 'refunded', 'expired'] as const;
export type PaymentHistoryStatus = (typeof PAYMENT_HISTORY_STATUSES)[number];

/**
 * A checkout not paid within a day reads as not completed (expired). A day, as Stripe Checkout
 * Sessions expire by default (24 h) and Cardlink's and Payssion's hosted pages are left well
 * before it; payment methods that settle later (a bank transfer, a voucher) still confirm
 * through the provider's webhook, which moves the payment on whatever it reads as.
 */
export const CHECKOUT_EXPIRES_MS = 24 * 60 * 60_000;

/** A payment's public id: what the history lists and the receipt and refund calls take. */
export const paymentPublicId = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, { error: 'Unknown payment.' });
export const paymentParams = z.object({ publicId: paymentPublicId });

export const paymentHistoryItem = z.object({
  /** Unique in the list: the payment's public id, or `<publicId>:refund` for a refund entry. */
  id: z.string(),
  /** The payment this entry is about (a refund entry names the payment it gave back). */
  paymentId: z.string(),
  /** purchase: bought by hand; renewal: charged by auto-renew; grant: given by support; refund: money given back. */
  kind: z.enum(PAYMENT_HISTORY_KINDS),
  status: z.enum(PAYMENT_HISTORY_STATUSES),
  /** ISO time: paid (or refunded, for a refund entry); the attempt's time when it did not go through. */
  date: z.string(),
  amountMinor: z.number().int(),
  currency: z.string(),
  /** The provider's id (sandbox, stripe, payssion, payssionv2, cardlink, grant). */
  provider: z.string(),
  tariffName: z.string(),
  /** The plan's key (the web names the plan in its language by it); empty when the plan is no longer in the catalogue. */
  tariffKey: z.string(),
  /** The period this payment bought (ISO); periodEnd null for lifetime; both null when nothing was bought. */
  periodStart: z.string().nullable(),
  periodEnd: z.string().nullable(),
  /** Why the provider refused it (a failed attempt), as the provider said; null otherwise. */
  failureReason: z.string().nullable(),
  /** A receipt PDF can be downloaded. */
  receiptAvailable: z.boolean(),
  /** The customer can ask for the money back now (inside the window, not asked yet). */
  refundAvailable: z.boolean(),
  /** The customer asked for the money back and support has not refunded it yet (Payssion, Cardlink). */
  refundRequested: z.boolean(),
  /** ISO time the money-back window closes for this payment (null when it has none). */
  refundableUntil: z.string().nullable(),
});
export type PaymentHistoryItem = z.infer<typeof paymentHistoryItem>;

export const paymentHistory = z.object({
  /** Newest first. */
  items: z.array(paymentHistoryItem),
  moneyBackDays: z.number().int(),
});
export type PaymentHistory = z.infer<typeof paymentHistory>;

/** refunded: the money went back and the plan lost that period now; requested: support refunds it (Payssion, Cardlink), the period ends then. */
export const REFUND_OUTCOMES = ['refunded', 'requested'] as const;
export type RefundOutcome = (typeof REFUND_OUTCOMES)[number];
export const refundAnswer = paymentHistory.extend({ outcome: z.enum(REFUND_OUTCOMES) });
export type RefundAnswer = z.infer<typeof refundAnswer>;
