import Stripe from 'stripe';
import {
  type CreatePaymentInput, type PaymentProvider, type ProviderPaymentState, WEBHOOK_TOLERANCE_S, WebhookRejected, type WebhookRequest,
} from './provider.js';

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
    ...(api ? { host: api.hostname, port: Number(api.port || (api.protocol === 'https:' ? 443 : 80)), protocol: api.protocol.replace(':', '') as 'http' | 'https' } : {}),
  });
  const toState = (pi: Stripe.PaymentIntent): ProviderPaymentState => {
    const refunded = typeof pi.latest_charge === 'object' && pi.latest_charge?.refunded;
    return {
      providerRef: pi.id,
      merchantRef: pi.metadata?.merchant_ref,
      status: refunded ? 'refunded' : pi.status === 'succeeded' ? 'succeeded' : pi.status === 'canceled' ? 'failed' : 'pending',
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
        const back = (status: string) => `${input.returnUrl}${input.returnUrl.includes('?') ? '&' : '?'}redirect_status=${status}`;
        const session = await stripe.checkout.sessions.create(
          {
            mode: 'payment',
            client_reference_id: input.merchantRef,
            customer_email: input.customerEmail,
            line_items: [{ quantity: 1, price_data: { currency: input.currency.toLowerCase(), unit_amount: input.amountMinor, product_data: { name: input.description } } }],
            success_url: back('succeeded'),
            cancel_url: back('failed'),
            metadata: { merchant_ref: input.merchantRef },
            payment_intent_data: { metadata: { merchant_ref: input.merchantRef } },
          },
          { idempotencyKey: input.idempotencyKey },
        );
        return { providerRef: session.id, redirectUrl: session.url ?? undefined };
      }
      const pi = await stripe.paymentIntents.create(
        {
          amount: input.amountMinor,
          currency: input.currency.toLowerCase(),
          description: input.description,
          receipt_email: input.customerEmail,
          metadata: { merchant_ref: input.merchantRef },
          ...(input.method ? { payment_method_types: [input.method] } : { automatic_payment_methods: { enabled: true } }),
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
      const object = event.data.object as { id?: string; object?: string; payment_intent?: string | { id: string }; metadata?: Record<string, string> };
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

    async fetchState(providerRef: string) {
      if (providerRef.startsWith('cs_')) {
        const session = await stripe.checkout.sessions.retrieve(providerRef, { expand: ['payment_intent.latest_charge'] });
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
