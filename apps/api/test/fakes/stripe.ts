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
  customer: string | null;
  payment_method: string | null;
  setup_future_usage: 'off_session' | null;
}
/** A saved card; `behaviour` decides its off-session charges (tests set it). */
interface FakePaymentMethod {
  id: string;
  object: 'payment_method';
  type: 'card';
  /** null once detached. */
  customer: string | null;
  card: { brand: string; last4: string; exp_month: number; exp_year: number };
}
/** sca: the bank wants the cardholder to confirm (Stripe's 402 authentication_required for an off-session charge). */
type CardBehaviour = 'ok' | 'decline' | 'expired' | 'sca';
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
  mode: 'payment' | 'setup';
  status: 'open' | 'complete' | 'expired';
  /** Setup mode (changing the card): the SetupIntent behind the page and the customer it saves to. */
  setup_intent?: string | null;
  customer?: string | null;
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
  saveCard: boolean;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

export async function startFakeStripe(opts: { webhookSecret: string; secretKey: string }) {
  const intents = new Map<string, FakeIntent>();
  const sessions = new Map<string, FakeSession>();
  const charges = new Map<string, FakeCharge>();
  const customers = new Map<string, { id: string; object: 'customer'; email: string | null }>();
  const paymentMethods = new Map<string, FakePaymentMethod>();
  const behaviours = new Map<string, CardBehaviour>();
  const setupIntents = new Map<
    string,
    { id: string; object: 'setup_intent'; status: 'succeeded'; customer: string; payment_method: string }
  >();
  const idempotency = new Map<string, { fingerprint: string; status: number; json: unknown }>();
  const sdk = new Stripe(opts.secretKey);
  let created = 0;
  let refunds = 0;
  /** Detach calls answered 500 before the fake detaches again (tests: a provider down). */
  let detachFailures = 0;

  const error = (status: number, type: string, message: string) => ({ status, json: { error: { type, message } } });

  function handle(req: FakeRequest) {
    if (req.headers.authorization !== `Bearer ${opts.secretKey}`)
      return error(401, 'invalid_request_error', 'Invalid API Key provided.');
    if (req.method === 'POST' && req.path === '/v1/customers') {
      const key = req.headers['idempotency-key'];
      if (typeof key === 'string' && idempotency.has(key)) return { status: 200, json: idempotency.get(key)!.json };
      const cus = { id: id('cus'), object: 'customer' as const, email: req.form.get('email') };
      customers.set(cus.id, cus);
      if (typeof key === 'string') idempotency.set(key, { fingerprint: '', status: 200, json: cus });
      return { json: cus };
    }
    // A full refund of a PaymentIntent's charge (the customer's money-back request).
    if (req.method === 'POST' && req.path === '/v1/refunds') {
      const key = req.headers['idempotency-key'];
      if (typeof key === 'string' && idempotency.has(key))
        return { status: 200, json: idempotency.get(key)!.json, headers: { 'idempotent-replayed': 'true' } };
      const pi = intents.get(req.form.get('payment_intent') ?? '');
      const charge = pi?.latest_charge ? charges.get(pi.latest_charge) : undefined;
      if (!pi || !charge) return error(400, 'invalid_request_error', 'No such payment_intent, or it has no charge.');
      if (charge.refunded) return error(400, 'invalid_request_error', `Charge ${charge.id} has already been refunded.`);
      charge.refunded = true;
      charge.amount_refunded = charge.amount;
      refunds++;
      const refund = {
        id: id('re'),
        object: 'refund',
        amount: charge.amount,
        charge: charge.id,
        payment_intent: pi.id,
        status: 'succeeded',
        currency: pi.currency,
      };
      if (typeof key === 'string') idempotency.set(key, { fingerprint: '', status: 200, json: refund });
      return { json: refund };
    }
    if (req.method === 'POST' && req.path === '/v1/payment_intents') {
      const key = req.headers['idempotency-key'];
      const fingerprint = createHash('sha256').update(req.body).digest('hex');
      if (typeof key === 'string') {
        const seen = idempotency.get(key);
        if (seen && seen.fingerprint !== fingerprint)
          return error(
            400,
            'idempotency_error',
            'Keys for idempotent requests can only be used with the same parameters they were first used with.',
          );
        if (seen) return { status: seen.status, json: seen.json, headers: { 'idempotent-replayed': 'true' } };
      }
      const f = req.form;
      // An off-session charge of a saved card: confirmed at once, succeeded or declined by the card's behaviour.
      if (f.get('confirm') === 'true' && f.get('payment_method')) {
        const pm = paymentMethods.get(f.get('payment_method')!);
        if (!pm || pm.customer !== f.get('customer'))
          return error(400, 'invalid_request_error', 'No such PaymentMethod.');
        const piId = id('pi');
        const metadata: Record<string, string> = {};
        for (const [k, v] of f) {
          const m = /^metadata\[(.+)\]$/.exec(k);
          if (m) metadata[m[1]!] = v;
        }
        const pi: FakeIntent = {
          id: piId,
          object: 'payment_intent',
          amount: Number(f.get('amount')),
          currency: f.get('currency') ?? 'usd',
          status: 'requires_payment_method',
          client_secret: `${piId}_secret_x`,
          description: f.get('description'),
          receipt_email: null,
          metadata,
          latest_charge: null,
          created: Math.floor(Date.now() / 1000),
          livemode: false,
          customer: pm.customer,
          payment_method: pm.id,
          setup_future_usage: null,
        };
        intents.set(piId, pi);
        created++;
        const behaviour = behaviours.get(pm.id) ?? 'ok';
        let answer: { status: number; json: unknown };
        if (behaviour === 'ok') {
          const charge: FakeCharge = {
            id: id('ch'),
            object: 'charge',
            payment_intent: piId,
            amount: pi.amount,
            refunded: false,
            amount_refunded: 0,
          };
          charges.set(charge.id, charge);
          pi.status = 'succeeded';
          pi.latest_charge = charge.id;
          answer = { status: 200, json: pi };
        } else {
          const [code, decline, message] =
            behaviour === 'expired'
              ? ['expired_card', 'expired_card', 'Your card has expired.']
              : behaviour === 'sca'
                ? [
                    'authentication_required',
                    'authentication_required',
                    'Your card was declined. This transaction requires authentication.',
                  ]
                : ['card_declined', 'insufficient_funds', 'Your card has insufficient funds.'];
          answer = {
            status: 402,
            json: { error: { type: 'card_error', code, decline_code: decline, message, payment_intent: pi } },
          };
        }
        if (typeof key === 'string') idempotency.set(key, { fingerprint, ...answer });
        return answer;
      }
      const amount = Number(f.get('amount'));
      if (!Number.isInteger(amount) || amount < 50) return error(400, 'invalid_request_error', 'Invalid amount.');
      const metadata: Record<string, string> = {};
      for (const [k, v] of f) {
        const m = /^metadata\[(.+)\]$/.exec(k);
        if (m) metadata[m[1]!] = v;
      }
      const piId = id('pi');
      const pi: FakeIntent = {
        id: piId,
        object: 'payment_intent',
        amount,
        currency: f.get('currency') ?? 'usd',
        status: 'requires_payment_method',
        client_secret: `${piId}_secret_${randomBytes(8).toString('hex')}`,
        description: f.get('description'),
        receipt_email: f.get('receipt_email'),
        metadata,
        latest_charge: null,
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        customer: f.get('customer'),
        payment_method: null,
        setup_future_usage: f.get('setup_future_usage') === 'off_session' ? 'off_session' : null,
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
          return error(
            400,
            'idempotency_error',
            'Keys for idempotent requests can only be used with the same parameters they were first used with.',
          );
        if (seen) return { status: seen.status, json: seen.json, headers: { 'idempotent-replayed': 'true' } };
      }
      const f = req.form;
      if (f.get('mode') === 'setup') {
        // Checkout in setup mode: a page that saves a card on the customer, nothing charged.
        const customer = f.get('customer');
        if (!f.get('currency') || (customer && !customers.has(customer)))
          return error(400, 'invalid_request_error', 'Invalid setup session.');
        const csId = id('cs');
        const session: FakeSession = {
          id: csId,
          object: 'checkout.session',
          mode: 'setup',
          status: 'open',
          payment_status: 'unpaid',
          amount_total: 0,
          currency: f.get('currency')!,
          url: `${server.url}/setup/${csId}`,
          success_url: f.get('success_url') ?? '',
          cancel_url: f.get('cancel_url') ?? '',
          client_reference_id: f.get('client_reference_id'),
          metadata: { merchant_ref: f.get('metadata[merchant_ref]') ?? '' },
          intentMetadata: {},
          payment_intent: null,
          saveCard: false,
          setup_intent: null,
          customer: customer ?? null,
        };
        sessions.set(csId, session);
        const { intentMetadata: _m, saveCard: _s, ...json } = session;
        if (typeof key === 'string') idempotency.set(key, { fingerprint, status: 200, json });
        return { json };
      }
      const amount = Number(f.get('line_items[0][price_data][unit_amount]'));
      if (f.get('mode') !== 'payment' || !Number.isInteger(amount) || amount < 50)
        return error(400, 'invalid_request_error', 'Invalid session.');
      const csId = id('cs');
      const session: FakeSession = {
        id: csId,
        object: 'checkout.session',
        mode: 'payment',
        status: 'open',
        payment_status: 'unpaid',
        amount_total: amount,
        currency: f.get('line_items[0][price_data][currency]') ?? 'usd',
        url: `${server.url}/pay/${csId}`,
        success_url: f.get('success_url') ?? '',
        cancel_url: f.get('cancel_url') ?? '',
        client_reference_id: f.get('client_reference_id'),
        metadata: { merchant_ref: f.get('metadata[merchant_ref]') ?? '' },
        intentMetadata: { merchant_ref: f.get('payment_intent_data[metadata][merchant_ref]') ?? '' },
        payment_intent: null,
        saveCard:
          f.get('payment_intent_data[setup_future_usage]') === 'off_session' && f.get('customer_creation') === 'always',
      };
      sessions.set(csId, session);
      created++;
      const { intentMetadata: _m, saveCard: _s, ...json } = session;
      if (typeof key === 'string') idempotency.set(key, { fingerprint, status: 200, json });
      return { json };
    }
    const cs = /^\/v1\/checkout\/sessions\/([A-Za-z0-9_]+)$/.exec(req.path);
    if (req.method === 'GET' && cs) {
      const session = sessions.get(cs[1]!);
      if (!session) return error(404, 'invalid_request_error', `No such checkout.session: '${cs[1]}'`);
      const expand = [...req.query.entries()]
        .filter(([k]) => k === 'expand[]' || /^expand\[\d+\]$/.test(k))
        .map(([, v]) => v);
      const pi = session.payment_intent ? intents.get(session.payment_intent) : undefined;
      const expandedPi = !pi
        ? pi
        : expand.includes('payment_intent.latest_charge')
          ? { ...pi, latest_charge: pi.latest_charge ? (charges.get(pi.latest_charge) ?? null) : null }
          : expand.includes('payment_intent.payment_method')
            ? { ...pi, payment_method: pi.payment_method ? (paymentMethods.get(pi.payment_method) ?? null) : null }
            : pi;
      const { intentMetadata: _m, saveCard: _s, ...json } = session;
      if (session.mode === 'setup') {
        const si = session.setup_intent ? setupIntents.get(session.setup_intent) : undefined;
        const expanded =
          si && expand.includes('setup_intent.payment_method')
            ? { ...si, payment_method: paymentMethods.get(si.payment_method) ?? null }
            : si;
        return {
          json: {
            ...json,
            setup_intent: expand.some((e) => e.startsWith('setup_intent')) ? (expanded ?? null) : session.setup_intent,
          },
        };
      }
      return {
        json: {
          ...json,
          payment_intent: expand.some((e) => e.startsWith('payment_intent'))
            ? (expandedPi ?? null)
            : session.payment_intent,
        },
      };
    }
    // Detaching a saved card from its customer (POST /v1/payment_methods/:id/detach), as Stripe answers it.
    const detach = /^\/v1\/payment_methods\/([A-Za-z0-9_]+)\/detach$/.exec(req.path);
    if (req.method === 'POST' && detach) {
      if (detachFailures > 0) {
        detachFailures--;
        return error(500, 'api_error', 'An unknown error occurred.');
      }
      const pm = paymentMethods.get(detach[1]!);
      if (!pm)
        return {
          status: 404,
          json: {
            error: {
              type: 'invalid_request_error',
              code: 'resource_missing',
              message: `No such PaymentMethod: '${detach[1]}'`,
            },
          },
        };
      if (!pm.customer)
        return error(
          400,
          'invalid_request_error',
          'The payment method you provided is not attached to a customer so detachment is impossible.',
        );
      pm.customer = null;
      return { json: pm };
    }
    const m = /^\/v1\/payment_intents\/([A-Za-z0-9_]+)$/.exec(req.path);
    if (req.method === 'GET' && m) {
      const pi = intents.get(m[1]!);
      if (!pi) return error(404, 'invalid_request_error', `No such payment_intent: '${m[1]}'`);
      const expand = [...req.query.entries()]
        .filter(([k]) => k === 'expand[]' || /^expand\[\d+\]$/.test(k))
        .map(([, v]) => v);
      const charge = pi.latest_charge ? charges.get(pi.latest_charge) : undefined;
      const pm = pi.payment_method ? paymentMethods.get(pi.payment_method) : undefined;
      return {
        json: {
          ...pi,
          latest_charge: expand.includes('latest_charge') ? (charge ?? null) : pi.latest_charge,
          payment_method: expand.includes('payment_method') ? (pm ?? null) : pi.payment_method,
        },
      };
    }
    return error(404, 'invalid_request_error', 'Unrecognized request URL.');
  }

  const server = await startFake(handle);

  /** The card the customer typed is saved on the customer (setup_future_usage), as Stripe does. */
  function saveCard(pi: FakeIntent, customer: string) {
    const pm: FakePaymentMethod = {
      id: id('pm'),
      object: 'payment_method',
      type: 'card',
      customer,
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 },
    };
    paymentMethods.set(pm.id, pm);
    pi.customer = customer;
    pi.payment_method = pm.id;
  }

  function event(type: string, object: FakeIntent | FakeCharge | Omit<FakeSession, 'intentMetadata' | 'saveCard'>) {
    return JSON.stringify({
      id: id('evt'),
      object: 'event',
      type,
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      api_version: '2025-01-27',
      data: { object },
    });
  }

  /** A Stripe-Signature header made by the SDK itself. */
  const signature = (payload: string, timestamp?: number, secret = opts.webhookSecret) =>
    sdk.webhooks.generateTestHeaderString({ payload, secret, ...(timestamp ? { timestamp } : {}) });

  return {
    ...server,
    intents,
    /** How many provider payments were really created (idempotent replays excluded). */
    createdCount: () => created,
    /** How many refunds were really made (idempotent replays excluded). */
    refundCount: () => refunds,
    /** The customer pays: the intent succeeds with a charge; returns the event Stripe would send. */
    pay(piId: string) {
      const pi = intents.get(piId)!;
      const charge: FakeCharge = {
        id: id('ch'),
        object: 'charge',
        payment_intent: piId,
        amount: pi.amount,
        refunded: false,
        amount_refunded: 0,
      };
      charges.set(charge.id, charge);
      pi.status = 'succeeded';
      pi.latest_charge = charge.id;
      if (pi.setup_future_usage === 'off_session' && pi.customer) saveCard(pi, pi.customer);
      return event('payment_intent.succeeded', pi);
    },
    sessions,
    /** The customer saves a new card on a setup-mode Checkout page: a succeeded SetupIntent with a new card on the customer. */
    completeSetup(csId: string, last4 = '0005') {
      const session = sessions.get(csId)!;
      const customer = session.customer!;
      const pm: FakePaymentMethod = {
        id: id('pm'),
        object: 'payment_method',
        type: 'card',
        customer,
        card: { brand: 'mastercard', last4, exp_month: 1, exp_year: 2031 },
      };
      paymentMethods.set(pm.id, pm);
      const si = {
        id: id('seti'),
        object: 'setup_intent' as const,
        status: 'succeeded' as const,
        customer,
        payment_method: pm.id,
      };
      setupIntents.set(si.id, si);
      session.setup_intent = si.id;
      session.status = 'complete';
      return pm.id;
    },
    /** The customer pays on the hosted Checkout page: a succeeded intent with a charge; returns checkout.session.completed. */
    paySession(csId: string) {
      const session = sessions.get(csId)!;
      const piId = id('pi');
      const charge: FakeCharge = {
        id: id('ch'),
        object: 'charge',
        payment_intent: piId,
        amount: session.amount_total,
        refunded: false,
        amount_refunded: 0,
      };
      charges.set(charge.id, charge);
      intents.set(piId, {
        id: piId,
        object: 'payment_intent',
        amount: session.amount_total,
        currency: session.currency,
        status: 'succeeded',
        client_secret: `${piId}_secret_x`,
        description: null,
        receipt_email: null,
        metadata: session.intentMetadata,
        latest_charge: charge.id,
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        customer: null,
        payment_method: null,
        setup_future_usage: session.saveCard ? 'off_session' : null,
      });
      if (session.saveCard) {
        const cus = { id: id('cus'), object: 'customer' as const, email: null };
        customers.set(cus.id, cus);
        saveCard(intents.get(piId)!, cus.id);
      }
      session.payment_intent = piId;
      session.status = 'complete';
      session.payment_status = 'paid';
      const { intentMetadata: _m, saveCard: _s, ...object } = session;
      return event('checkout.session.completed', object);
    },
    paymentMethods,
    /** The next `n` detach calls fail with a 500 (Stripe down). */
    failDetaches(n: number) {
      detachFailures = n;
    },
    /** How a saved card answers its next off-session charges (default ok). */
    setCard(pmId: string, behaviour: CardBehaviour) {
      behaviours.set(pmId, behaviour);
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
      return deliver(endpoint, payload, {
        'content-type': 'application/json; charset=utf-8',
        ...(header === null ? {} : { 'stripe-signature': header }),
      });
    },
  };
}
export type FakeStripe = Awaited<ReturnType<typeof startFakeStripe>>;
