import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/client.js';
import {
  type SandboxCardRow,
  type SandboxEvent,
  type SandboxHost,
  type SandboxRow,
  sandboxRepository,
} from '../modules/billing/index.js';
import { hmac, safeEqual } from '../lib/secrets.js';
import {
  type ChargeSavedInput,
  type MethodUpdateInput,
  type ChargeSavedResult,
  type CreatePaymentInput,
  type PaymentProvider,
  type ProviderPaymentState,
  type ProviderPaymentStatus,
  type SavedMethod,
  WEBHOOK_TOLERANCE_S,
  WebhookRejected,
  type WebhookRequest,
} from './provider.js';

/**
 * The built-in sandbox: a provider that lives in our own process but behaves like a real one.
 * It keeps its own payment objects, has a hosted page (/sandbox/checkout/:id), and notifies
 * the merchant with signed webhooks (`Sandbox-Signature: t=…,v1=hmac(t.body)`), re-sending
 * them until acknowledged.
 */
export const SANDBOX_SIGNATURE_HEADER = 'sandbox-signature';
export type { SandboxCardRow, SandboxEvent, SandboxRow };

/** The test card the sandbox page "saves" when a checkout asked to keep the method for renewals. */
export const SANDBOX_CARD_LABEL = 'Sandbox Visa •••• 4242';

const STATUS: Record<SandboxRow['status'], ProviderPaymentStatus> = {
  open: 'pending',
  paid: 'succeeded',
  declined: 'failed',
  refunded: 'refunded',
};

/** Languages the hosted page speaks (sandbox-page.ts). */
export const SANDBOX_LANGUAGES: readonly string[] = ['en', 'ru', 'zh'];

export function signSandbox(secret: string, body: string, timestamp: number): string {
  return `t=${timestamp},v1=${hmac(secret, `${timestamp}.${body}`)}`;
}

export function sandboxProvider(
  db: Queryable,
  secret: string,
  pageBaseUrl: () => string,
  now: () => number = Date.now,
): PaymentProvider &
  SandboxHost & {
    refund(id: string): Promise<SandboxEvent | undefined>;
    card(id: string): Promise<SandboxCardRow | undefined>;
    /** Test controls of a saved card: decline its next charge, or report it unusable (lost) from now on. */
    setCard(id: string, change: { declineNext?: boolean; unusable?: boolean }): Promise<boolean>;
    savedMethodOf(providerRef: string): Promise<{ methodRef: string; label: string } | null>;
    chargeSaved(input: ChargeSavedInput): Promise<ChargeSavedResult>;
    forgetMethod(method: SavedMethod): Promise<void>;
    detachMethod(method: { methodRef: string }): Promise<void>;
    startMethodUpdate(input: MethodUpdateInput): Promise<{ providerRef: string; redirectUrl: string }>;
    methodOfUpdate(providerRef: string): Promise<SavedMethod | null>;
  } {
  const repo = sandboxRepository(db);
  const find = repo.find;
  const transition = async (
    id: string,
    from: SandboxRow['status'][],
    to: SandboxRow['status'],
    type: SandboxEvent['type'],
  ) => {
    const row = await find(id);
    if (!row || !from.includes(row.status)) return { row, event: undefined };
    const event: SandboxEvent = {
      id: `evt_${randomUUID()}`,
      type,
      created: Math.floor(now() / 1000),
      data: { id, merchant_ref: row.merchant_ref },
    };
    const updated = await repo.transition(id, from, to, event);
    return updated ? { row: updated, event } : { row, event: undefined };
  };

  return {
    id: 'sandbox',
    ack: { contentType: 'application/json', body: '{"received":true}' },

    async create(input: CreatePaymentInput) {
      const id = `sbx_${randomUUID().replace(/-/g, '')}`;
      // Idempotent like a real provider: the same key returns the same payment.
      const row = await repo.insert({
        id,
        amountMinor: input.amountMinor,
        currency: input.currency,
        description: input.description,
        notifyUrl: input.notifyUrl,
        returnUrl: input.returnUrl,
        merchantRef: input.merchantRef,
        idempotencyKey: input.idempotencyKey,
        saveCard: input.saveMethod === true,
      });
      // The page opens where the buyer is (their brand host), else on the configured base.
      const page = new URL(`/sandbox/checkout/${row.id}`, input.pageOrigin ?? pageBaseUrl());
      if (input.language && SANDBOX_LANGUAGES.includes(input.language)) page.searchParams.set('lang', input.language);
      return { providerRef: row.id, redirectUrl: page.href };
    },

    verifyWebhook(request: WebhookRequest) {
      const header = request.headers[SANDBOX_SIGNATURE_HEADER];
      if (typeof header !== 'string') throw new WebhookRejected('missing signature');
      const parts = Object.fromEntries(header.split(',').map((kv) => kv.split('=') as [string, string]));
      const timestamp = Number(parts.t);
      if (!Number.isInteger(timestamp) || !parts.v1) throw new WebhookRejected('malformed signature');
      if (Math.abs(now() / 1000 - timestamp) > WEBHOOK_TOLERANCE_S) throw new WebhookRejected('stale webhook');
      const expected = signSandbox(secret, request.rawBody.toString('utf8'), timestamp);
      if (!safeEqual(expected, `t=${timestamp},v1=${parts.v1}`)) throw new WebhookRejected('bad signature');
      let event: SandboxEvent;
      try {
        event = JSON.parse(request.rawBody.toString('utf8'));
      } catch {
        throw new WebhookRejected('malformed body');
      }
      if (typeof event?.id !== 'string' || typeof event?.data?.id !== 'string')
        throw new WebhookRejected('malformed event');
      return { eventId: event.id, kind: event.type, providerRef: event.data.id, merchantRef: event.data.merchant_ref };
    },

    async fetchState(providerRef: string): Promise<ProviderPaymentState> {
      const row = await find(providerRef);
      if (!row) throw new WebhookRejected('unknown payment');
      return {
        providerRef,
        merchantRef: row.merchant_ref,
        status: STATUS[row.status],
        amountMinor: row.amount_minor,
        currency: row.currency,
      };
    },

    find,
    async complete(id, outcome) {
      if (outcome === 'decline') return transition(id, ['open'], 'declined', 'payment.declined');
      const result = await transition(id, ['open'], 'paid', 'payment.paid');
      // A checkout that asked to keep the method saves the test card, as a real provider keeps a card.
      if (result.event && result.row?.save_card && !result.row.card_id) {
        const cardId = `card_${randomUUID().replace(/-/g, '')}`;
        await repo.insertCard(cardId, SANDBOX_CARD_LABEL);
        result.row = (await repo.attachCard(id, cardId)) ?? result.row;
      }
      return result;
    },
    /** The sandbox's card update: its hosted page with nothing to pay, which keeps a new test card when the customer saves it. */
    async startMethodUpdate(input) {
      const row = await repo.insert({
        id: `sbx_${randomUUID().replace(/-/g, '')}`,
        amountMinor: 0,
        currency: input.currency,
        description: 'Save a new card for renewals',
        notifyUrl: '',
        returnUrl: input.returnUrl,
        merchantRef: input.reference,
        idempotencyKey: input.reference,
        saveCard: true,
      });
      const page = new URL(`/sandbox/checkout/${row.id}`, input.pageOrigin ?? pageBaseUrl());
      if (input.language && SANDBOX_LANGUAGES.includes(input.language)) page.searchParams.set('lang', input.language);
      return { providerRef: row.id, redirectUrl: page.href };
    },
    async methodOfUpdate(providerRef) {
      const row = await find(providerRef);
      if (!row || row.amount_minor !== 0 || !row.card_id || row.status !== 'paid') return null;
      const card = await repo.card(row.card_id);
      return card && !card.unusable ? { methodRef: card.id, label: card.label } : null;
    },
    card: repo.card,
    setCard: repo.setCard,
    async savedMethodOf(providerRef) {
      const row = await find(providerRef);
      if (!row?.card_id || row.status !== 'paid') return null;
      const card = await repo.card(row.card_id);
      return card && !card.unusable ? { methodRef: card.id, label: card.label } : null;
    },
    /**
     * Charges a saved card with no page, like an off-session charge: paid at once, or declined when
     * the card was told to decline its next charge or is unusable. The same idempotency key gives
     * the same payment (and the decision made for it the first time).
     */
    async chargeSaved(input) {
      const card = await repo.card(input.method.methodRef);
      if (!card) return { status: 'failed', error: 'No such saved card.', unusable: true };
      const row = await repo.insert({
        id: `sbx_${randomUUID().replace(/-/g, '')}`,
        amountMinor: input.amountMinor,
        currency: input.currency,
        description: input.description,
        notifyUrl: input.notifyUrl,
        returnUrl: input.notifyUrl,
        merchantRef: input.merchantRef,
        idempotencyKey: input.idempotencyKey,
        cardId: card.id,
      });
      if (row.status === 'open') {
        if (card.unusable) await transition(row.id, ['open'], 'declined', 'payment.declined');
        else if (await repo.takeDeclineNext(card.id))
          await transition(row.id, ['open'], 'declined', 'payment.declined');
        else await transition(row.id, ['open'], 'paid', 'payment.paid');
      }
      const final = (await find(row.id))!;
      const status = STATUS[final.status];
      if (status !== 'failed') return { providerRef: final.id, status };
      return card.unusable
        ? { providerRef: final.id, status, unusable: true, error: 'The card was reported lost (sandbox).' }
        : { providerRef: final.id, status, error: 'The card was declined (sandbox).' };
    },
    /** Deletes the saved card (its label and every reference to it), as a real provider deletes a customer's method. */
    async forgetMethod(method) {
      await repo.forgetCard(method.methodRef);
    },
    /** The old card after a card change: the sandbox's test card is deleted (a card it no longer has is fine). */
    async detachMethod(method) {
      await repo.forgetCard(method.methodRef);
    },
    async refund(id) {
      return (await transition(id, ['paid'], 'refunded', 'payment.refunded')).event;
    },
    acknowledge: (id, eventId) => repo.acknowledge(id, eventId),
    async undelivered() {
      const rows = await repo.withPendingEvents();
      return rows.flatMap((row) => row.pending_events.map((event) => ({ row, event })));
    },
    signedDelivery(event) {
      const body = JSON.stringify(event);
      return { body, signature: signSandbox(secret, body, Math.floor(now() / 1000)) };
    },
  };
}
export type SandboxProvider = ReturnType<typeof sandboxProvider>;
