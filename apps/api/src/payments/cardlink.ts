import type { Queryable } from '../db/client.js';
import {
  type CreatePaymentInput,
  type CreatePaymentResult,
  type PaymentProvider,
  type ProviderPaymentState,
  type ProviderPaymentStatus,
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

export interface CardlinkConfig {
  apiToken: string;
  shopId: string;
  /** https://cardlink.link; tests point it at a local fake. */
  apiUrl: string;
}

/**
 * Cardlink (https://cardlink.link/reference/api):
 * - create: POST /api/v1/bill/create with `Authorization: Bearer {token}` (form) →
 *   { success: 'true', link_url, link_page_url, bill_id }; we send the browser to link_page_url.
 * - status: GET /api/v1/bill/status?id={bill_id} → { success: 'true', id, status: NEW | PROCESS |
 *   UNDERPAID | SUCCESS | OVERPAID | FAIL, amount, currency_in }.
 * - postback to the shop's Result URL: form fields Status, InvId (our order_id), OutSum,
 *   CurrencyIn, TrsId, custom, Commission, SignatureValue = strtoupper(md5(OutSum:InvId:token)).
 *   We answer `OK`. The postback has no timestamp: replays are harmless because the state is
 *   always re-read from bill/status.
 * Cardlink has no idempotency key and no lookup by order_id: a retried checkout reuses the bill
 * remembered for our payment (provider_checkouts) and concurrent ones share one call.
 */
export function cardlinkSignature(apiToken: string, outSum: string, invId: string): string {
  return md5(`${outSum}:${invId}:${apiToken}`).toUpperCase();
}

export function cardlinkStatus(status: string): ProviderPaymentStatus {
  switch (status.toUpperCase()) {
    case 'SUCCESS':
    case 'OVERPAID':
      return 'succeeded';
    case 'FAIL':
    case 'FAILED':
    case 'EXPIRED':
      return 'failed';
    case 'REFUND':
    case 'REFUNDED':
    case 'CHARGEBACK':
      return 'refunded';
    default: // NEW, PROCESS, UNDERPAID
      return 'pending';
  }
}

const ok = (v: unknown) => v === true || v === 'true';

export function cardlinkProvider(
  config: CardlinkConfig,
  db: Queryable,
  fetchImpl: typeof fetch = fetch,
): PaymentProvider {
  const base = config.apiUrl.replace(/\/+$/, '');
  const auth = { authorization: `Bearer ${config.apiToken}` };
  const cache = checkoutCache(db, 'cardlink');
  const once = singleFlight<CreatePaymentResult>();

  async function createOnce(input: CreatePaymentInput): Promise<CreatePaymentResult> {
    const cached = await cache.get(input.merchantRef);
    if (cached) return { providerRef: cached.provider_ref, redirectUrl: cached.redirect_url ?? undefined };
    const { status, body } = await callJson(
      `${base}/api/v1/bill/create`,
      {
        method: 'POST',
        headers: auth,
        form: {
          amount: toDecimal(input.amountMinor),
          order_id: input.merchantRef,
          description: input.description,
          type: 'normal',
          shop_id: config.shopId,
          currency_in: input.currency,
          custom: input.merchantRef,
          payer_pays_commission: '0',
          name: input.description,
        },
      },
      fetchImpl,
    );
    if (!ok(body.success)) {
      if (status === 400 || status === 422) throw new ProviderRefused();
      throw new ProviderUnavailable(); // 401/403: our token or shop; nothing the customer can fix
    }
    const billId = text(body.bill_id);
    const redirectUrl = text(body.link_page_url);
    if (!billId || !/^https?:\/\//.test(redirectUrl)) throw new ProviderUnavailable();
    await cache.put(input.merchantRef, billId, redirectUrl);
    return { providerRef: billId, redirectUrl };
  }

  return {
    id: 'cardlink',
    ack: { contentType: 'text/plain; charset=utf-8', body: 'OK' },

    create: (input) => once(input.merchantRef, () => createOnce(input)),

    verifyWebhook(request: WebhookRequest) {
      const f = request.fields;
      const outSum = text(f.OutSum);
      const invId = text(f.InvId);
      const status = text(f.Status);
      if (!f.SignatureValue) throw new WebhookRejected('missing signature');
      if (!sameSignature(cardlinkSignature(config.apiToken, outSum, invId), f.SignatureValue))
        throw new WebhookRejected('bad signature');
      if (!invId || !status) throw new WebhookRejected('malformed postback');
      const trsId = text(f.TrsId);
      return {
        eventId: `${trsId || invId}:${status}`,
        kind: `payment.${status.toLowerCase()}`,
        merchantRef: invId,
        state: {
          providerRef: '',
          merchantRef: invId,
          status: cardlinkStatus(status),
          amountMinor: fromDecimal(outSum),
          currency: text(f.CurrencyIn).toUpperCase() || undefined,
        },
      };
    },

    async fetchState(billId: string): Promise<ProviderPaymentState> {
      const { body } = await callJson(
        `${base}/api/v1/bill/status?id=${encodeURIComponent(billId)}`,
        { method: 'GET', headers: auth },
        fetchImpl,
      );
      if (!ok(body.success) || text(body.id) !== billId) throw new WebhookRejected('unknown bill');
      return {
        providerRef: billId,
        status: cardlinkStatus(text(body.status)),
        amountMinor: fromDecimal(body.amount),
        currency: text(body.currency_in).toUpperCase() || undefined,
      };
    },
  };
}
