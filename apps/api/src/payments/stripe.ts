import Stripe from 'stripe';
import {
  type ChargeSavedInput,
  type ChargeSavedResult,
  type CreatePaymentInput,
  type PaymentProvider,
  type ProviderPaymentState,
  type SavedMethod,
  WEBHOOK_TOLERANCE_S,
  WebhookRejected,
  type WebhookRequest,
} from './provider.js';

/**
 * Declines after which a saved card is never tried again (Stripe's decline codes: the card is
 * gone or the customer withdrew the permission); other declines (insufficient funds, a bank's
 * generic refusal, authentication required) are retried on the renewal schedule.
 */
/**
 * The card's bank wants the cardholder to confirm (3-D Secure / SCA), which an off-session charge
 * cannot do: the renewal fails at once with a message that says so, the card stays saved (the
 * next charge may pass), and the failed-renewal mail's pay-by-hand link is the way to confirm now.
 * Never left "pending": nothing would ever complete it.
 */
const AUTHENTICATION_NEEDED =
  'Your bank asks you to confirm this payment yourself: pay by hand to keep your plan (your card stays saved).';
const UNUSABLE_DECLINES = new Set([
  'expired_card',
  'lost_card',
  'stolen_card',
  'pickup_card',
  'restricted_card',
  'revocation_of_authorization',
  'revocation_of_all_authorizations',
  'card_not_supported',
  'invalid_account',
]);

const cardLabel = (pm: Stripe.PaymentMethod | string | null | undefined): string => {
  if (!pm || typeof pm === 'string' || !pm.card) return 'Stripe';
  const brand = pm.card.brand ? pm.card.brand.charAt(0).toUpperCase() + pm.card.brand.slice(1) : 'Card';
  return `${brand} •••• ${pm.card.last4}`;
};

export interface StripeConfig {
  secretKey: string;
  publishableKey: string;
  webhookSecret: string;
  /** Overrides the API host (tests point it at a local fake speaking Stripe's REST protocol). */
  apiUrl?: string;
}

/** Stripe through its official SDK: PaymentIntents for the embedded card form, webhooks via constructEvent. */
export function stripeProvider(config: StripeConfig): PaymentProvider {
  const api = config.apiUrl ? new URL(config.apiUrl) : undefined;
  const stripe = new Stripe(config.secretKey, {
    maxNetworkRetries: 2,
    timeout: 10_000,
    ...(api
      ? {
          host: api.hostname,
          port: Number(api.port || (api.protocol === 'https:' ? 443 : 80)),
          protocol: api.protocol.replace(':', '') as 'http' | 'https',
        }
      : {}),
  });
  const toState = (pi: Stripe.PaymentIntent): ProviderPaymentState => {
    const refunded = typeof pi.latest_charge === 'object' && pi.latest_charge?.refunded;
    return {
      providerRef: pi.id,
      merchantRef: pi.metadata?.merchant_ref,
      status: refunded
        ? 'refunded'
        : pi.status === 'succeeded'
          ? 'succeeded'
          : pi.status === 'canceled'
            ? 'failed'
            : 'pending',
      amountMinor: pi.amount,
      currency: pi.currency.toUpperCase(),
    };
  };

  return {
    id: 'stripe',
    ack: { contentType: 'application/json', body: '{"received":true}' },

    async create(input: CreatePaymentInput) {
      if (input.flow !== 'embedded') {
        // Stripe Checkout: a hosted page, like every other provider; the browser comes back with redirect_status.
        const back = (status: string) =>
          `${input.returnUrl}${input.returnUrl.includes('?') ? '&' : '?'}redirect_status=${status}`;
        const session = await stripe.checkout.sessions.create(
          {
            mode: 'payment',
            client_reference_id: input.merchantRef,
            customer_email: input.customerEmail,
            line_items: [
              {
                quantity: 1,
                price_data: {
                  currency: input.currency.toLowerCase(),
                  unit_amount: input.amountMinor,
                  product_data: { name: input.description },
                },
              },
            ],
            success_url: back('succeeded'),
            cancel_url: back('failed'),
            metadata: { merchant_ref: input.merchantRef },
            payment_intent_data: {
              metadata: { merchant_ref: input.merchantRef },
              ...(input.saveMethod ? { setup_future_usage: 'off_session' as const } : {}),
            },
            // Renewals charge a customer's saved payment method: Checkout makes the customer.
            ...(input.saveMethod ? { customer_creation: 'always' as const } : {}),
          },
          { idempotencyKey: input.idempotencyKey },
        );
        return { providerRef: session.id, redirectUrl: session.url ?? undefined };
      }
      const customer = input.saveMethod
        ? (
            await stripe.customers.create(
              { email: input.customerEmail, metadata: { merchant_ref: input.merchantRef } },
              { idempotencyKey: `${input.idempotencyKey}-customer` },
            )
          ).id
        : undefined;
      const pi = await stripe.paymentIntents.create(
        {
          ...(customer ? { customer, setup_future_usage: 'off_session' as const } : {}),
          amount: input.amountMinor,
          currency: input.currency.toLowerCase(),
          description: input.description,
          receipt_email: input.customerEmail,
          metadata: { merchant_ref: input.merchantRef },
          ...(input.method
            ? { payment_method_types: [input.method] }
            : { automatic_payment_methods: { enabled: true } }),
        },
        { idempotencyKey: input.idempotencyKey },
      );
      return { providerRef: pi.id, clientSecret: pi.client_secret ?? undefined, publishableKey: config.publishableKey };
    },

    async verifyWebhook(request: WebhookRequest) {
      const signature = request.headers['stripe-signature'];
      if (typeof signature !== 'string') throw new WebhookRejected('missing signature');
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(request.rawBody, signature, config.webhookSecret, WEBHOOK_TOLERANCE_S);
      } catch {
        throw new WebhookRejected('bad signature');
      }
      // The SDK refuses only the old: a timestamp from the future would keep a captured delivery replayable for as long.
      const signedAt = Number(/(?:^|,)\s*t=(\d+)/.exec(signature)?.[1]);
      if (!Number.isSafeInteger(signedAt) || signedAt - Date.now() / 1000 > WEBHOOK_TOLERANCE_S)
        throw new WebhookRejected('signature timestamp in the future');
      // Signed, but not an event about an object (hand-made, or a type this code does not know): nothing to reconcile.
      if (!event.data || typeof event.data.object !== 'object' || event.data.object === null)
        throw new WebhookRejected('the event has no data.object');
      const object = event.data.object as {
        id?: string;
        object?: string;
        payment_intent?: string | { id: string };
        metadata?: Record<string, string>;
      };
      const providerRef =
        object.object === 'payment_intent' || object.object === 'checkout.session'
          ? object.id
          : typeof object.payment_intent === 'string'
            ? object.payment_intent
            : object.payment_intent?.id;
      let merchantRef = object.metadata?.merchant_ref;
      // A charge (refund) event of a Checkout payment may not carry our reference: its PaymentIntent does.
      if (!merchantRef && object.object === 'charge' && providerRef) {
        merchantRef = (await stripe.paymentIntents.retrieve(providerRef)).metadata?.merchant_ref;
      }
      return { eventId: event.id, kind: event.type, providerRef, merchantRef };
    },

    /**
     * Changing the card without paying: Stripe Checkout in setup mode for the customer renewals
     * charge (a SetupIntent behind it); the browser comes back with the session id's status read
     * by methodOfUpdate.
     */
    async startMethodUpdate(input) {
      const session = await stripe.checkout.sessions.create(
        {
          mode: 'setup',
          currency: input.currency.toLowerCase(),
          ...(input.customerRef ? { customer: input.customerRef } : { customer_creation: 'always' as const }),
          client_reference_id: input.reference,
          success_url: input.returnUrl,
          cancel_url: input.returnUrl,
          metadata: { merchant_ref: input.reference },
          setup_intent_data: { metadata: { merchant_ref: input.reference } },
        },
        { idempotencyKey: input.reference },
      );
      if (!session.url) throw new Error('Stripe answered no page for the card update');
      return { providerRef: session.id, redirectUrl: session.url };
    },
    async methodOfUpdate(providerRef: string): Promise<SavedMethod | null> {
      const session = await stripe.checkout.sessions.retrieve(providerRef, {
        expand: ['setup_intent.payment_method'],
      });
      const si = typeof session.setup_intent === 'object' ? session.setup_intent : null;
      if (session.status !== 'complete' || !si || si.status !== 'succeeded') return null;
      const customer = typeof si.customer === 'string' ? si.customer : si.customer?.id;
      const pm = si.payment_method;
      const methodRef = typeof pm === 'string' ? pm : pm?.id;
      if (!customer || !methodRef) return null;
      return { customerRef: customer, methodRef, label: cardLabel(pm) };
    },

    async savedMethodOf(providerRef: string): Promise<SavedMethod | null> {
      let pi: Stripe.PaymentIntent | null;
      if (providerRef.startsWith('cs_')) {
        const session = await stripe.checkout.sessions.retrieve(providerRef, {
          expand: ['payment_intent.payment_method'],
        });
        pi = typeof session.payment_intent === 'object' ? session.payment_intent : null;
      } else {
        pi = await stripe.paymentIntents.retrieve(providerRef, { expand: ['payment_method'] });
      }
      if (!pi || pi.status !== 'succeeded' || !pi.setup_future_usage) return null;
      const customer = typeof pi.customer === 'string' ? pi.customer : pi.customer?.id;
      const pm = pi.payment_method;
      const methodRef = typeof pm === 'string' ? pm : pm?.id;
      if (!customer || !methodRef) return null;
      return { customerRef: customer, methodRef, label: cardLabel(pm) };
    },

    /** An off-session PaymentIntent on the saved method, confirmed at once; Stripe's idempotency key makes a retried call the same charge. */
    async chargeSaved(input: ChargeSavedInput): Promise<ChargeSavedResult> {
      try {
        const pi = await stripe.paymentIntents.create(
          {
            amount: input.amountMinor,
            currency: input.currency.toLowerCase(),
            description: input.description,
            customer: input.method.customerRef,
            payment_method: input.method.methodRef,
            off_session: true,
            confirm: true,
            metadata: { merchant_ref: input.merchantRef },
          },
          { idempotencyKey: input.idempotencyKey },
        );
        if (pi.status === 'succeeded') return { providerRef: pi.id, status: 'succeeded' };
        // Still moving at the bank (e.g. a debit that settles later): the webhook or the next look decides.
        if (pi.status === 'processing' || pi.status === 'requires_capture')
          return { providerRef: pi.id, status: 'pending' };
        if (pi.status === 'canceled') return { providerRef: pi.id, status: 'failed' };
        // requires_action / requires_payment_method / requires_confirmation: the customer must act.
        return { providerRef: pi.id, status: 'failed', error: AUTHENTICATION_NEEDED };
      } catch (err) {
        if (err instanceof Stripe.errors.StripeCardError) {
          if (err.code === 'authentication_required' || err.decline_code === 'authentication_required')
            return { providerRef: err.payment_intent?.id, status: 'failed', error: AUTHENTICATION_NEEDED };
          const code = err.decline_code ?? err.code ?? '';
          return {
            providerRef: err.payment_intent?.id,
            status: 'failed',
            error: err.message,
            unusable: UNUSABLE_DECLINES.has(code) || UNUSABLE_DECLINES.has(err.code ?? ''),
          };
        }
        throw err;
      }
    },

    /**
     * The account was deleted: the customer made for renewals (it holds the email) is deleted, which
     * detaches its saved methods; a method without a customer is detached on its own.
     */
    /**
     * The old card after a card change: the PaymentMethod detached from the customer (the customer
     * keeps the new one). A method Stripe no longer has, or that is attached to no customer any
     * more, is already what we want.
     */
    async detachMethod(method) {
      try {
        await stripe.paymentMethods.detach(method.methodRef);
      } catch (err) {
        if (
          err instanceof Stripe.errors.StripeInvalidRequestError &&
          (err.code === 'resource_missing' || /not attached/i.test(err.message))
        )
          return;
        throw err;
      }
    },

    async forgetMethod(method: SavedMethod): Promise<void> {
      if (method.customerRef) await stripe.customers.del(method.customerRef);
      else await stripe.paymentMethods.detach(method.methodRef);
    },

    /** Gives the whole payment back (the customer's money-back request): once per PaymentIntent, whatever the retries. */
    async refund(providerRef: string) {
      let intent = providerRef;
      if (providerRef.startsWith('cs_')) {
        const session = await stripe.checkout.sessions.retrieve(providerRef);
        intent =
          (typeof session.payment_intent === 'string' ? session.payment_intent : session.payment_intent?.id) ?? '';
        if (!intent) throw new Error('the Checkout Session has no payment');
      }
      await stripe.refunds.create({ payment_intent: intent }, { idempotencyKey: `refund-${intent}` });
    },

    async fetchState(providerRef: string) {
      if (providerRef.startsWith('cs_')) {
        const session = await stripe.checkout.sessions.retrieve(providerRef, {
          expand: ['payment_intent.latest_charge'],
        });
        const pi = typeof session.payment_intent === 'object' ? session.payment_intent : null;
        if (pi) return { ...toState(pi), providerRef, merchantRef: session.metadata?.merchant_ref };
        return {
          providerRef,
          merchantRef: session.metadata?.merchant_ref,
          status: session.status === 'expired' ? 'failed' : 'pending',
          amountMinor: session.amount_total ?? undefined,
          currency: session.currency?.toUpperCase(),
        };
      }
      return toState(await stripe.paymentIntents.retrieve(providerRef, { expand: ['latest_charge'] }));
    },
  };
}
