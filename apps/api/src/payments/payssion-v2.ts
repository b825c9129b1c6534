import type { Queryable } from '../db/client.js';
import { billingRepository, mandateRepository } from '../modules/billing/index.js';
import {
  type ChargeSavedInput,
  type ChargeSavedResult,
  type CreatePaymentInput,
  type CreatePaymentResult,
  type PaymentProvider,
  type PaymentRequest,
  type ProviderPaymentState,
  type SavedMethod,
  WEBHOOK_TOLERANCE_S,
  WebhookRejected,
  type WebhookRequest,
} from './provider.js';
import {
  ProviderUnavailable,
  callJson,
  checkoutCache,
  hmacSha256Hex,
  sameSignature,
  singleFlight,
  text,
  toDecimal,
} from './provider-http.js';
import {
  PAYSSION_ACK,
  PAYSSION_DEFAULT_PM_ID,
  type PayssionConfig,
  type PayssionTransaction,
  earlierPayment,
  payssionNotification,
  payssionState,
  payssionStatus,
  refuseOrFail,
} from './payssion.js';

/** The order fields of a v2 payment (a first payment that asks for a mandate, or a charge on one). */
const orderFields = (input: PaymentRequest) => ({
  amount: toDecimal(input.amountMinor),
  currency: input.currency,
  order_id: input.merchantRef,
  description: input.description,
  notify_url: input.notifyUrl,
});

/**
 * Payssion v2 with mandates (a saved payment agreement used for renewals), behind
 * getPayssionV2MandateOrDoPayment: a user without an active mandate is sent to a hosted page that
 * creates the mandate and makes the first payment with it; a user with one is charged directly
 * (no redirect; the answer carries the charge's status and the notification completes it).
 *
 * THE V2 WIRE FORMAT BELOW IS OUR READING. Payssion's public documentation of v2 is thin, so the
 * paths, field names and the signature are modelled on v1 and kept in this one file:
 * - every request carries api_key and timestamp (unix seconds) and `signature` =
 *   hex HMAC-SHA256(secret_key, the other fields sorted by name as `key=value` joined by '&');
 * - POST /api/v2/mandate/create  {pm_id, amount, currency, order_id, description, return_url, notify_url, payer_email, payer_ref}
 *   → { result_code: 200, redirect_url, mandate: { mandate_id, state }, transaction: { transaction_id, state } }
 * - POST /api/v2/payment/create  {mandate_id, amount, currency, order_id, description, notify_url}
 *   → { result_code: 200, transaction: { transaction_id, state } }; a mandate that is no longer
 *   usable answers result_code 440 (we then mark it revoked and create a new one)
 * - POST /api/v2/payment/details {transaction_id, order_id}
 *   → { result_code: 200, transaction: { transaction_id, order_id, state, amount, currency, mandate_id }, mandate?: { mandate_id, state } }
 * - notification: form POST with the same `notify_sig` scheme over every other field (incl. timestamp,
 *   refused when older than 300 s, like Stripe).
 * Only mandate ids are stored (payment_mandates); never card data.
 */
export const MANDATE_UNUSABLE = 440;
const REFUSALS = new Set([400, 405, 406, 407]);

/** HMAC-SHA256 over the sorted key=value pairs (empty values included), joined by '&'. */
export function payssionV2Signature(secretKey: string, fields: Record<string, string>): string {
  const canonical = Object.keys(fields)
    .filter((k) => k !== 'signature' && k !== 'notify_sig')
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('&');
  return hmacSha256Hex(secretKey, canonical);
}

export function payssionV2Provider(
  config: PayssionConfig,
  db: Queryable,
  opts: { fetchImpl?: typeof fetch; now?: () => number } = {},
): PaymentProvider {
  const base = config.apiUrl.replace(/\/+$/, '');
  const fetchImpl = opts.fetchImpl ?? fetch;
  const now = opts.now ?? Date.now;
  const cache = checkoutCache(db, 'payssionv2');
  const once = singleFlight<CreatePaymentResult>();
  const onceCharge = singleFlight<ChargeSavedResult>();

  async function call(path: string, fields: Record<string, string>) {
    const signed = { ...fields, api_key: config.apiKey, timestamp: String(Math.floor(now() / 1000)) };
    const { body } = await callJson(
      `${base}${path}`,
      { method: 'POST', form: { ...signed, signature: payssionV2Signature(config.secretKey, signed) } },
      fetchImpl,
    );
    return body;
  }

  const payments = billingRepository(db);
  const mandates = mandateRepository(db, 'payssionv2');
  const userOf = (merchantRef: string) => payments.userOfPayment(merchantRef);
  const activeMandate = (userId: number) => mandates.active(userId);
  const saveMandate = (userId: number, mandateId: string, status: 'pending' | 'active' | 'revoked') =>
    mandates.save(userId, mandateId, status);

  async function details(transactionId: string, orderId: string) {
    const body = await call('/api/v2/payment/details', { transaction_id: transactionId, order_id: orderId });
    if (body.result_code !== 200) return undefined;
    const tx = body.transaction as PayssionTransaction | undefined;
    if (!tx || typeof tx !== 'object' || typeof tx.transaction_id !== 'string') return undefined;
    const mandate = body.mandate as { mandate_id?: string; state?: string } | undefined;
    return { tx, mandate };
  }

  /** A charge the provider took on a mandate: remembered against our payment, so a retry finds it. */
  async function keepCharge(merchantRef: string, body: Record<string, unknown>) {
    const tx = body.transaction as PayssionTransaction | undefined;
    if (!tx?.transaction_id) throw new ProviderUnavailable();
    await cache.put(merchantRef, tx.transaction_id, undefined);
    return { providerRef: tx.transaction_id, status: payssionStatus(text(tx.state)) };
  }

  async function createOnce(input: CreatePaymentInput): Promise<CreatePaymentResult> {
    // A charge on a mandate has no page: pending there is no open page to lose.
    const earlier = await earlierPayment(
      cache,
      input.merchantRef,
      async (orderId) => (await details('', orderId))?.tx,
      (tx) => payssionStatus(text(tx.state)) === 'pending' && !tx.mandate_id,
    );
    if (earlier) return earlier;
    const userId = await userOf(input.merchantRef);
    if (userId === undefined) throw new ProviderUnavailable();
    const common = orderFields(input);

    const mandateId = await activeMandate(userId);
    if (mandateId) {
      const body = await call('/api/v2/payment/create', { ...common, mandate_id: mandateId });
      const code = Number(body.result_code);
      if (code === 200) return keepCharge(input.merchantRef, body);
      if (code !== MANDATE_UNUSABLE) refuseOrFail(code);
      // The customer withdrew the agreement (or it expired): ask for a new one below.
      await saveMandate(userId, mandateId, 'revoked');
    }

    const body = await call('/api/v2/mandate/create', {
      ...common,
      pm_id: input.method || PAYSSION_DEFAULT_PM_ID,
      return_url: input.returnUrl,
      payer_email: input.customerEmail,
      payer_ref: `u${userId}`,
    });
    const code = Number(body.result_code);
    if (code !== 200) refuseOrFail(code);
    const tx = body.transaction as PayssionTransaction | undefined;
    const mandate = body.mandate as { mandate_id?: string } | undefined;
    const redirectUrl = text(body.redirect_url);
    if (!tx?.transaction_id || !mandate?.mandate_id || !/^https?:\/\//.test(redirectUrl))
      throw new ProviderUnavailable();
    await saveMandate(userId, mandate.mandate_id, 'pending');
    await cache.put(input.merchantRef, tx.transaction_id, redirectUrl);
    return { providerRef: tx.transaction_id, redirectUrl };
  }

  return {
    id: 'payssionv2',
    ack: PAYSSION_ACK,

    create: (input) => once(input.merchantRef, () => createOnce(input)),

    verifyWebhook(request: WebhookRequest) {
      const fields = Object.fromEntries(Object.entries(request.fields).map(([k, v]) => [k, text(v)]));
      if (!fields.notify_sig) throw new WebhookRejected('missing signature');
      if (!sameSignature(payssionV2Signature(config.secretKey, fields), fields.notify_sig))
        throw new WebhookRejected('bad signature');
      const timestamp = Number(fields.timestamp);
      if (!Number.isInteger(timestamp) || Math.abs(now() / 1000 - timestamp) > WEBHOOK_TOLERANCE_S)
        throw new WebhookRejected('stale notification');
      const { transaction_id: transactionId = '', order_id: orderId = '', state = '' } = fields;
      return payssionNotification(
        { transactionId, orderId, state, amount: fields.amount, currency: fields.currency },
        `${transactionId}:${state}:${timestamp}`,
      );
    },

    /*
     * No startMethodUpdate, hence no detachMethod (issue 23, the card change): Payssion has no page
     * to replace a mandate without paying, so the card change is not offered for it (the page says
     * so), and the v2 API as we know it has no call to cancel a mandate at the provider either. A
     * mandate we stop using is only marked revoked in our table (payment_mandates).
     */
    /** The customer's active mandate is what renews (the provider's name is its label: Payssion reports no card). */
    async savedMethodOf(_providerRef: string, userId: number): Promise<SavedMethod | null> {
      const mandateId = await activeMandate(userId);
      return mandateId ? { methodRef: mandateId, label: 'Payssion' } : null;
    },

    /**
     * A renewal: a charge on the saved mandate, no page. Our payment id is the order id, so a
     * retried call finds the provider's transaction (the cache, then the provider's own lookup)
     * instead of charging again. A mandate the provider calls unusable is revoked here.
     */
    chargeSaved: (input: ChargeSavedInput) =>
      onceCharge(input.merchantRef, async (): Promise<ChargeSavedResult> => {
        const cached = await cache.get(input.merchantRef);
        const existing = await details(cached?.provider_ref ?? '', input.merchantRef);
        if (existing)
          return { providerRef: existing.tx.transaction_id!, status: payssionStatus(text(existing.tx.state)) };
        const body = await call('/api/v2/payment/create', {
          ...orderFields(input),
          mandate_id: input.method.methodRef,
        });
        const code = Number(body.result_code);
        if (code === 200) return keepCharge(input.merchantRef, body);
        if (code === MANDATE_UNUSABLE) {
          const userId = await userOf(input.merchantRef);
          if (userId !== undefined) await saveMandate(userId, input.method.methodRef, 'revoked');
          return { status: 'failed', unusable: true, error: 'The payment agreement (mandate) is no longer valid.' };
        }
        if (REFUSALS.has(code))
          return { status: 'failed', error: text(body.description) || `Refused by the provider (${code}).` };
        throw new ProviderUnavailable();
      }),

    async fetchState(providerRef: string): Promise<ProviderPaymentState> {
      const orderId = (await cache.merchantRefOf(providerRef)) ?? '';
      const found = await details(providerRef, orderId);
      if (!found) throw new WebhookRejected('unknown payment');
      const { tx, mandate } = found;
      const state = payssionState(tx);
      // The provider's word on the mandate, read from its own object (never from the notification body).
      const mandateId = mandate?.mandate_id ?? tx.mandate_id;
      const mandateState = text(mandate?.state);
      const userId = tx.order_id ? await userOf(tx.order_id) : undefined;
      if (mandateId && userId !== undefined) {
        if (mandateState === 'active' || (!mandateState && state.status === 'succeeded'))
          await saveMandate(userId, mandateId, 'active');
        else if (mandateState === 'revoked' || mandateState === 'cancelled' || mandateState === 'expired')
          await saveMandate(userId, mandateId, 'revoked');
      }
      return state;
    },
  };
}
