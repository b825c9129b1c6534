import type { Queryable } from '../db/client.js';
import {
  type CreatePaymentInput,
  type CreatePaymentResult,
  type PaymentProvider,
  type ProviderPaymentState,
  type ProviderPaymentStatus,
  type VerifiedWebhook,
  WebhookRejected,
  type WebhookRequest,
} from './provider.js';
import {
  ProviderRefused,
  ProviderUnavailable,
  callJson,
  checkoutCache,
  fromDecimal,
  md5,
  sameSignature,
  singleFlight,
  text,
  toDecimal,
} from './provider-http.js';
import { ConflictError } from '../lib/errors.js';

export interface PayssionConfig {
  apiKey: string;
  secretKey: string;
  /** https://www.payssion.com (live) or https://sandbox.payssion.com; tests point it at a local fake. */
  apiUrl: string;
}

/**
 * Payssion v1 hosted payment (https://www.payssion.com/en/docs/):
 * - create: POST /api/v1/payment/create (form), api_sig = md5(api_key|pm_id|amount|currency|order_id|secret_key);
 *   answer { result_code: 200, redirect_url, transaction: { transaction_id, state } }.
 * - details: POST /api/v1/payment/details, api_sig = md5(api_key|transaction_id|order_id|secret_key).
 * - notification: form POST to notify_url, notify_sig = md5(api_key|pm_id|amount|currency|order_id|state|secret_key).
 *   Payssion only looks at the HTTP status (its sample answers an empty 200); we answer `ok` as text/plain.
 * The notification carries no timestamp, so replay protection is that the state is always re-read
 * with the details call: replaying an old notification can only re-confirm the current state.
 */
export const PAYSSION_DEFAULT_PM_ID = 'payssion_test';

/** Result codes that mean "this payment cannot be made this way" rather than "our setup is broken". */
const REFUSALS = new Set([400, 405, 406, 407]);

/** Payssion transaction states → ours. paid_partial stays pending: a partial payment buys nothing. */
export function payssionStatus(state: string): ProviderPaymentStatus {
  switch (state) {
    case 'completed':
      return 'succeeded';
    case 'refunded':
    case 'refund_pending':
    case 'chargeback':
    case 'chargeback_pending':
      return 'refunded';
    case 'failed':
    case 'cancelled':
    case 'cancelled_by_user':
    case 'rejected':
    case 'expired':
    case 'error':
      return 'failed';
    default: // pending, paid_partial, awaiting_confirm, created, …
      return 'pending';
  }
}

export function payssionSignatures(config: PayssionConfig) {
  const { apiKey, secretKey } = config;
  return {
    create: (f: { pm_id: string; amount: string; currency: string; order_id: string }) =>
      md5([apiKey, f.pm_id, f.amount, f.currency, f.order_id, secretKey].join('|')),
    details: (f: { transaction_id: string; order_id: string }) =>
      md5([apiKey, f.transaction_id, f.order_id, secretKey].join('|')),
    notify: (f: { pm_id: string; amount: string; currency: string; order_id: string; state: string }) =>
      md5([apiKey, f.pm_id, f.amount, f.currency, f.order_id, f.state, secretKey].join('|')),
  };
}

/** A transaction as both Payssion APIs answer it (v2 adds the mandate). */
export interface PayssionTransaction {
  transaction_id?: string;
  order_id?: string;
  state?: string;
  amount?: string | number;
  currency?: string;
  mandate_id?: string;
}

// --- what both Payssion providers (v1 here, v2 with mandates in payssion-v2.ts) share ------------

/** Payssion's sample answers an empty 200; we answer `ok` as text/plain. */
export const PAYSSION_ACK = { contentType: 'text/plain; charset=utf-8', body: 'ok' } as const;

/** A result code other than 200: the customer's payment refused (ProviderRefused), else our setup is broken (details stay in our logs). */
export function refuseOrFail(code: number): never {
  if (REFUSALS.has(code)) throw new ProviderRefused();
  throw new ProviderUnavailable();
}

/** The payment state of a transaction the provider answered. */
export const payssionState = (tx: PayssionTransaction): ProviderPaymentState => ({
  providerRef: tx.transaction_id!,
  merchantRef: tx.order_id || undefined,
  status: payssionStatus(text(tx.state)),
  amountMinor: fromDecimal(tx.amount),
  currency: tx.currency ? text(tx.currency).toUpperCase() : undefined,
});

/** A verified notification's event (its signature checked by the caller), refused when it names no transaction, order or state. */
export function payssionNotification(
  f: {
    transactionId: string;
    orderId: string;
    state: string;
    amount: string | undefined;
    currency: string | undefined;
  },
  eventId: string,
): VerifiedWebhook {
  if (!f.transactionId || !f.orderId || !f.state) throw new WebhookRejected('malformed notification');
  return {
    eventId,
    kind: `payment.${f.state}`,
    providerRef: f.transactionId,
    merchantRef: f.orderId,
    state: {
      providerRef: f.transactionId,
      merchantRef: f.orderId,
      status: payssionStatus(f.state),
      amountMinor: fromDecimal(f.amount),
      currency: f.currency?.toUpperCase(),
    },
  };
}

/**
 * The payment already made for this order, if any: our cache of the answer, else the provider's own
 * lookup by order id (Payssion takes no idempotency key, so a retry never makes a second payment).
 * One still open at the provider whose page we cannot send the browser back to (`open`) is a 409.
 */
export async function earlierPayment(
  cache: ReturnType<typeof checkoutCache>,
  merchantRef: string,
  lookUp: (orderId: string) => Promise<PayssionTransaction | undefined>,
  open: (tx: PayssionTransaction) => boolean,
): Promise<CreatePaymentResult | undefined> {
  const cached = await cache.get(merchantRef);
  if (cached) return { providerRef: cached.provider_ref, redirectUrl: cached.redirect_url ?? undefined };
  const existing = await lookUp(merchantRef);
  if (!existing) return undefined;
  // Made by an earlier attempt whose answer we did not keep (crash, another instance).
  if (open(existing))
    throw new ConflictError('This payment is already open at the payment provider. Please start a new checkout.');
  return { providerRef: existing.transaction_id!, status: payssionStatus(text(existing.state)) };
}

export function payssionProvider(
  config: PayssionConfig,
  db: Queryable,
  fetchImpl: typeof fetch = fetch,
): PaymentProvider {
  const base = config.apiUrl.replace(/\/+$/, '');
  const sig = payssionSignatures(config);
  const cache = checkoutCache(db, 'payssion');
  const once = singleFlight<CreatePaymentResult>();

  /** The provider's transaction for (transaction_id, order_id); undefined when it has none. */
  async function details(transactionId: string, orderId: string): Promise<PayssionTransaction | undefined> {
    const { body } = await callJson(
      `${base}/api/v1/payment/details`,
      {
        method: 'POST',
        form: {
          api_key: config.apiKey,
          transaction_id: transactionId,
          order_id: orderId,
          api_sig: sig.details({ transaction_id: transactionId, order_id: orderId }),
        },
      },
      fetchImpl,
    );
    if (body.result_code !== 200) return undefined;
    const tx = body.transaction as PayssionTransaction | undefined;
    return tx && typeof tx === 'object' && typeof tx.transaction_id === 'string' ? tx : undefined;
  }

  async function createOnce(input: CreatePaymentInput): Promise<CreatePaymentResult> {
    const earlier = await earlierPayment(
      cache,
      input.merchantRef,
      (orderId) => details('', orderId),
      (tx) => payssionStatus(text(tx.state)) === 'pending',
    );
    // v1 reports no status with an earlier payment: the notification or a fetchState settles it.
    if (earlier) return { providerRef: earlier.providerRef, redirectUrl: earlier.redirectUrl };
    const fields = {
      api_key: config.apiKey,
      pm_id: input.method || PAYSSION_DEFAULT_PM_ID,
      amount: toDecimal(input.amountMinor),
      currency: input.currency,
      order_id: input.merchantRef,
      description: input.description,
      return_url: input.returnUrl,
      notify_url: input.notifyUrl,
      payer_email: input.customerEmail,
    };
    const { body } = await callJson(
      `${base}/api/v1/payment/create`,
      { method: 'POST', form: { ...fields, api_sig: sig.create(fields) } },
      fetchImpl,
    );
    const code = Number(body.result_code);
    if (code !== 200) refuseOrFail(code);
    const tx = body.transaction as PayssionTransaction | undefined;
    const redirectUrl = text(body.redirect_url);
    if (!tx?.transaction_id || !/^https?:\/\//.test(redirectUrl)) throw new ProviderUnavailable();
    await cache.put(input.merchantRef, tx.transaction_id, redirectUrl);
    return { providerRef: tx.transaction_id, redirectUrl };
  }

  return {
    id: 'payssion',
    ack: PAYSSION_ACK,

    create: (input) => once(input.merchantRef, () => createOnce(input)),

    verifyWebhook(request: WebhookRequest) {
      const f = request.fields;
      const fields = {
        pm_id: text(f.pm_id),
        amount: text(f.amount),
        currency: text(f.currency),
        order_id: text(f.order_id),
        state: text(f.state),
      };
      const transactionId = text(f.transaction_id);
      if (!f.notify_sig) throw new WebhookRejected('missing signature');
      if (!sameSignature(sig.notify(fields), f.notify_sig)) throw new WebhookRejected('bad signature');
      return payssionNotification(
        { ...fields, transactionId, orderId: fields.order_id },
        `${transactionId}:${fields.state}`,
      );
    },

    async fetchState(providerRef: string) {
      const orderId = (await cache.merchantRefOf(providerRef)) ?? '';
      const tx = await details(providerRef, orderId);
      if (!tx) throw new WebhookRejected('unknown payment');
      return payssionState(tx);
    },
  };
}
