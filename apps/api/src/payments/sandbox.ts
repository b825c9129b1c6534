import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/client.js';
import { hmac, safeEqual } from '../lib/secrets.js';
import {
  type CreatePaymentInput, type PaymentProvider, type ProviderPaymentState, type ProviderPaymentStatus,
  WEBHOOK_TOLERANCE_S, WebhookRejected, type WebhookRequest,
} from './provider.js';

/**
 * The built-in sandbox: a provider that lives in our own process but behaves like a real one.
 * It keeps its own payment objects, has a hosted page (/sandbox/checkout/:id), and notifies
 * the merchant with signed webhooks (`Sandbox-Signature: t=…,v1=hmac(t.body)`), re-sending
 * them until acknowledged.
 */
export const SANDBOX_SIGNATURE_HEADER = 'sandbox-signature';

interface SandboxRow {
  id: string;
  amount_minor: number;
  currency: string;
  description: string;
  status: 'open' | 'paid' | 'declined' | 'refunded';
  notify_url: string;
  return_url: string;
  merchant_ref: string;
  pending_events: SandboxEvent[];
}
export interface SandboxEvent {
  id: string;
  type: 'payment.paid' | 'payment.declined' | 'payment.refunded';
  created: number;
  data: { id: string; merchant_ref: string };
}

const STATUS: Record<SandboxRow['status'], ProviderPaymentStatus> = { open: 'pending', paid: 'succeeded', declined: 'failed', refunded: 'refunded' };

export function signSandbox(secret: string, body: string, timestamp: number): string {
  return `t=${timestamp},v1=${hmac(secret, `${timestamp}.${body}`)}`;
}

export function sandboxProvider(db: Queryable, secret: string, pageBaseUrl: () => string, now: () => number = Date.now): PaymentProvider & {
  find(id: string): Promise<SandboxRow | undefined>;
  complete(id: string, outcome: 'pay' | 'decline'): Promise<{ row: SandboxRow | undefined; event?: SandboxEvent }>;
  refund(id: string): Promise<SandboxEvent | undefined>;
  acknowledge(id: string, eventId: string): Promise<void>;
  undelivered(): Promise<{ row: SandboxRow; event: SandboxEvent }[]>;
  signedDelivery(event: SandboxEvent): { body: string; signature: string };
} {
  const find = async (id: string) => (await db.query<SandboxRow>('select * from sandbox_payments where id = $1', [id]))[0];
  const transition = async (id: string, from: SandboxRow['status'][], to: SandboxRow['status'], type: SandboxEvent['type']) => {
    const row = await find(id);
    if (!row || !from.includes(row.status)) return { row, event: undefined };
    const event: SandboxEvent = { id: `evt_${randomUUID()}`, type, created: Math.floor(now() / 1000), data: { id, merchant_ref: row.merchant_ref } };
    const [updated] = await db.query<SandboxRow>(
      `update sandbox_payments set status = $2, pending_events = pending_events || $3::jsonb where id = $1 and status = any($4) returning *`,
      [id, to, JSON.stringify([event]), from],
    );
    return updated ? { row: updated, event } : { row, event: undefined };
  };

  return {
    id: 'sandbox',
    ack: { contentType: 'application/json', body: '{"received":true}' },

    async create(input: CreatePaymentInput) {
      const id = `sbx_${randomUUID().replace(/-/g, '')}`;
      // Idempotent like a real provider: the same key returns the same payment.
      const [row] = await db.query<SandboxRow>(
        `insert into sandbox_payments (id, amount_minor, currency, description, notify_url, return_url, merchant_ref, idempotency_key)
         values ($1, $2, $3, $4, $5, $6, $7, $8)
         on conflict (idempotency_key) do update set idempotency_key = excluded.idempotency_key
         returning *`,
        [id, input.amountMinor, input.currency, input.description, input.notifyUrl, input.returnUrl, input.merchantRef, input.idempotencyKey],
      );
      return { providerRef: row!.id, redirectUrl: `${pageBaseUrl()}/sandbox/checkout/${row!.id}` };
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
      if (typeof event?.id !== 'string' || typeof event?.data?.id !== 'string') throw new WebhookRejected('malformed event');
      return { eventId: event.id, kind: event.type, providerRef: event.data.id, merchantRef: event.data.merchant_ref };
    },

    async fetchState(providerRef: string): Promise<ProviderPaymentState> {
      const row = await find(providerRef);
      if (!row) throw new WebhookRejected('unknown payment');
      return { providerRef, merchantRef: row.merchant_ref, status: STATUS[row.status], amountMinor: row.amount_minor, currency: row.currency };
    },

    find,
    complete: (id, outcome) =>
      outcome === 'pay' ? transition(id, ['open'], 'paid', 'payment.paid') : transition(id, ['open'], 'declined', 'payment.declined'),
    async refund(id) {
      return (await transition(id, ['paid'], 'refunded', 'payment.refunded')).event;
    },
    async acknowledge(id, eventId) {
      await db.query(
        `update sandbox_payments set pending_events = coalesce((select jsonb_agg(e) from jsonb_array_elements(pending_events) e where e->>'id' <> $2), '[]'::jsonb) where id = $1`,
        [id, eventId],
      );
    },
    async undelivered() {
      const rows = await db.query<SandboxRow>(`select * from sandbox_payments where jsonb_array_length(pending_events) > 0`);
      return rows.flatMap((row) => row.pending_events.map((event) => ({ row, event })));
    },
    signedDelivery(event) {
      const body = JSON.stringify(event);
      return { body, signature: signSandbox(secret, body, Math.floor(now() / 1000)) };
    },
  };
}
export type SandboxProvider = ReturnType<typeof sandboxProvider>;
