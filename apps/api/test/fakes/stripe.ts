import { createHash, randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { type Delivery, type FakeRequest, deliver, startFake } from './http.js';

/**
 * A local Stripe speaking the REST protocol the official SDK uses: POST /v1/payment_intents
 * (form-encoded, Idempotency-Key honoured like Stripe: same key + same parameters → the same
 * answer, same key + other parameters → 400 idempotency_error), GET /v1/payment_intents/:id with
 * expand[]=latest_charge, and signed webhook deliveries (Stripe-Signature made with the SDK's
 * generateTestHeaderString).
 */
export interface FakeIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  currency: string;
  status: 'requires_payment_method' | 'succeeded' | 'canceled';
  client_secret: string;
  description: string | null;
  receipt_email: string | null;
  metadata: Record<string, string>;
  latest_charge: string | null;
  created: number;
  livemode: false;
}
interface FakeCharge {
  id: string;
  object: 'charge';
  payment_intent: string;
  amount: number;
  refunded: boolean;
  amount_refunded: number;
}

interface FakeSession {
  id: string;
  object: 'checkout.session';
  mode: 'payment';
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid';
  amount_total: number;
  currency: string;
  url: string;
  success_url: string;
  cancel_url: string;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  intentMetadata: Record<string, string>;
  payment_intent: string | null;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

export async function startFakeStripe(opts: { webhookSecret: string; secretKey: string }) {
  const intents = new Map<string, FakeIntent>();
  const sessions = new Map<string, FakeSession>();
  const charges = new Map<string, FakeCharge>();
  const idempotency = new Map<string, { fingerprint: string; status: number; json: unknown }>();
  const sdk = new Stripe(opts.secretKey);
  let created = 0;

  const error = (status: number, type: string, message: string) => ({ status, json: { error: { type, message } } });

  function handle(req: FakeRequest) {
    if (req.headers.authorization !== `Bearer ${opts.secretKey}`) return error(401, 'invalid_request_error', 'Invalid API Key provided.');
    if (req.method === 'POST' && req.path === '/v1/payment_intents') {
      const key = req.headers['idempotency-key'];
      const fingerprint = createHash('sha256').update(req.body).digest('hex');
      if (typeof key === 'string') {
        const seen = idempotency.get(key);
        if (seen && seen.fingerprint !== fingerprint)
          return error(400, 'idempotency_error', 'Keys for idempotent requests can only be used with the same parameters they were first used with.');
        if (seen) return { status: seen.status, json: seen.json, headers: { 'idempotent-replayed': 'true' } };
      }
      const f = req.form;
      const amount = Number(f.get('amount'));
      if (!Number.isInteger(amount) || amount < 50) return error(400, 'invalid_request_error', 'Invalid amount.');
      const metadata: Record<string, string> = {};
      for (const [k, v] of f) {
        const m = /^metadata\[(.+)\]$/.exec(k);
        if (m) metadata[m[1]!] = v;
      }
      const piId = id('pi');
      const pi: FakeIntent = {
        id: piId, object: 'payment_intent', amount, currency: f.get('currency') ?? 'usd', status: 'requires_payment_method',
        client_secret: `${piId}_secret_${randomBytes(8).toString('hex')}`, description: f.get('description'), receipt_email: f.get('receipt_email'),
        metadata, latest_charge: null, created: Math.floor(Date.now() / 1000), livemode: false,
      };
      intents.set(piId, pi);
      created++;
      if (typeof key === 'string') idempotency.set(key, { fingerprint, status: 200, json: pi });
      return { json: pi };
    }
    if (req.method === 'POST' && req.path === '/v1/checkout/sessions') {
      const key = req.headers['idempotency-key'];
      const fingerprint = createHash('sha256').update(req.body).digest('hex');
      if (typeof key === 'string') {
        const seen = idempotency.get(key);
        if (seen && seen.fingerprint !== fingerprint)
          return error(400, 'idempotency_error', 'Keys for idempotent requests can only be used with the same parameters they were first used with.');
        if (seen) return { status: seen.status, json: seen.json, headers: { 'idempotent-replayed': 'true' } };
      }
      const f = req.form;
      const amount = Number(f.get('line_items[0][price_data][unit_amount]'));
      if (f.get('mode') !== 'payment' || !Number.isInteger(amount) || amount < 50) return error(400, 'invalid_request_error', 'Invalid session.');
      const csId = id('cs');
      const session: FakeSession = {
        id: csId, object: 'checkout.session', mode: 'payment', status: 'open', payment_status: 'unpaid', amount_total: amount,
        currency: f.get('line_items[0][price_data][currency]') ?? 'usd', url: `${server.url}/pay/${csId}`,
        success_url: f.get('success_url') ?? '', cancel_url: f.get('cancel_url') ?? '', client_reference_id: f.get('client_reference_id'),
        metadata: { merchant_ref: f.get('metadata[merchant_ref]') ?? '' }, intentMetadata: { merchant_ref: f.get('payment_intent_data[metadata][merchant_ref]') ?? '' },
        payment_intent: null,
      };
      sessions.set(csId, session);
      created++;
      const { intentMetadata: _m, ...json } = session;
      if (typeof key === 'string') idempotency.set(key, { fingerprint, status: 200, json });
      return { json };
    }
    const cs = /^\/v1\/checkout\/sessions\/([A-Za-z0-9_]+)$/.exec(req.path);
    if (req.method === 'GET' && cs) {
      const session = sessions.get(cs[1]!);
      if (!session) return error(404, 'invalid_request_error', `No such checkout.session: '${cs[1]}'`);
      const expand = [...req.query.entries()].filter(([k]) => k === 'expand[]' || /^expand\[\d+\]$/.test(k)).map(([, v]) => v);
      const pi = session.payment_intent ? intents.get(session.payment_intent) : undefined;
      const expandedPi = pi && expand.includes('payment_intent.latest_charge') ? { ...pi, latest_charge: pi.latest_charge ? (charges.get(pi.latest_charge) ?? null) : null } : pi;
      const { intentMetadata: _m, ...json } = session;
      return { json: { ...json, payment_intent: expand.some((e) => e.startsWith('payment_intent')) ? (expandedPi ?? null) : session.payment_intent } };
    }
    const m = /^\/v1\/payment_intents\/([A-Za-z0-9_]+)$/.exec(req.path);
    if (req.method === 'GET' && m) {
      const pi = intents.get(m[1]!);
      if (!pi) return error(404, 'invalid_request_error', `No such payment_intent: '${m[1]}'`);
      const expand = [...req.query.entries()].filter(([k]) => k === 'expand[]' || /^expand\[\d+\]$/.test(k)).map(([, v]) => v);
      const charge = pi.latest_charge ? charges.get(pi.latest_charge) : undefined;
      return { json: { ...pi, latest_charge: expand.includes('latest_charge') ? (charge ?? null) : pi.latest_charge } };
    }
    return error(404, 'invalid_request_error', 'Unrecognized request URL.');
  }

  const server = await startFake(handle);

  function event(type: string, object: FakeIntent | FakeCharge | Omit<FakeSession, 'intentMetadata'>) {
    return JSON.stringify({ id: id('evt'), object: 'event', type, created: Math.floor(Date.now() / 1000), livemode: false, api_version: '2025-01-27', data: { object } });
  }

  /** A Stripe-Signature header made by the SDK itself. */
  const signature = (payload: string, timestamp?: number, secret = opts.webhookSecret) =>
    sdk.webhooks.generateTestHeaderString({ payload, secret, ...(timestamp ? { timestamp } : {}) });

  return {
    ...server,
    intents,
    /** How many provider payments were really created (idempotent replays excluded). */
    createdCount: () => created,
    /** The customer pays: the intent succeeds with a charge; returns the event Stripe would send. */
    pay(piId: string) {
      const pi = intents.get(piId)!;
      const charge: FakeCharge = { id: id('ch'), object: 'charge', payment_intent: piId, amount: pi.amount, refunded: false, amount_refunded: 0 };
      charges.set(charge.id, charge);
      pi.status = 'succeeded';
      pi.latest_charge = charge.id;
      return event('payment_intent.succeeded', pi);
    },
    sessions,
    /** The customer pays on the hosted Checkout page: a succeeded intent with a charge; returns checkout.session.completed. */
    paySession(csId: string) {
      const session = sessions.get(csId)!;
      const piId = id('pi');
      const charge: FakeCharge = { id: id('ch'), object: 'charge', payment_intent: piId, amount: session.amount_total, refunded: false, amount_refunded: 0 };
      charges.set(charge.id, charge);
      intents.set(piId, {
        id: piId, object: 'payment_intent', amount: session.amount_total, currency: session.currency, status: 'succeeded', client_secret: `${piId}_secret_x`,
        description: null, receipt_email: null, metadata: session.intentMetadata, latest_charge: charge.id, created: Math.floor(Date.now() / 1000), livemode: false,
      });
      session.payment_intent = piId;
      session.status = 'complete';
      session.payment_status = 'paid';
      const { intentMetadata: _m, ...object } = session;
      return event('checkout.session.completed', object);
    },
    refund(piId: string) {
      const pi = intents.get(piId)!;
      const charge = charges.get(pi.latest_charge!)!;
      charge.refunded = true;
      charge.amount_refunded = charge.amount;
      return event('charge.refunded', charge);
    },
    signature,
    /** Delivers an event to the merchant's endpoint over HTTP; signed properly unless a header is given. */
    send(endpoint: string, payload: string, header: string | null = signature(payload)): Promise<Delivery> {
      return deliver(endpoint, payload, { 'content-type': 'application/json; charset=utf-8', ...(header === null ? {} : { 'stripe-signature': header }) });
    },
  };
}
export type FakeStripe = Awaited<ReturnType<typeof startFakeStripe>>;
