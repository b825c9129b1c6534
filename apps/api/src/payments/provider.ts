/**
 * One interface for every payment provider. Our side never trusts the state written in a
 * webhook body where the provider lets us look the payment up: the final state is re-derived
 * from the provider's object, so replays and reordering converge.
 */
export type ProviderId = 'sandbox' | 'stripe' | 'payssion' | 'payssionv2' | 'cardlink';
export type ProviderPaymentStatus = 'pending' | 'succeeded' | 'failed' | 'refunded';

/** What every payment we ask a provider for carries: a checkout's and a renewal's alike. */
export interface PaymentRequest {
  /** Our payment's public id: the provider echoes it back (order id, metadata). */
  merchantRef: string;
  amountMinor: number;
  currency: string;
  description: string;
  customerEmail: string;
  /**
   * Our idempotency key for the provider call: a retried checkout never creates a second provider
   * payment; for a renewal, one per period and attempt, so a retried call never charges twice.
   */
  idempotencyKey: string;
  notifyUrl: string;
}

export interface CreatePaymentInput extends PaymentRequest {
  returnUrl: string;
  /** Provider-specific payment method (Payssion pm_id, Stripe payment method type). */
  method?: string;
  /**
   * `redirect` (default): a hosted page the browser is sent to. `embedded`: the page collects the
   * payment itself (Stripe Elements with the client secret), for callers that asked for it.
   */
  flow?: 'redirect' | 'embedded';
  country?: string;
  /** The buyer's origin (a registered brand host): a page we host ourselves opens there. */
  pageOrigin?: string;
  /** The buyer's UI language (en, ru, zh), for hosted pages that can show it. */
  language?: string;
  /** Keep the payment method for renewals (Stripe: setup_future_usage off_session; the sandbox: a saved test card). */
  saveMethod?: boolean;
}

/** What a provider keeps for charging a customer again: references only, never card data. */
export interface SavedMethod {
  /** Stripe customer id. */
  customerRef?: string;
  /** Stripe payment method id, Payssion v2 mandate id, sandbox card ref. */
  methodRef: string;
  /** As the provider reports it ("Visa •••• 4242"), or the provider's name. */
  label: string;
}

export interface MethodUpdateInput {
  /** Our reference for the update (echoed back, and the provider's idempotency key). */
  reference: string;
  /** The provider's customer the new method belongs to (Stripe). */
  customerRef?: string;
  customerEmail: string;
  /** The currency of the plan it will pay for (Stripe's setup mode needs one for some methods). */
  currency: string;
  returnUrl: string;
  pageOrigin?: string;
  language?: string;
}

export interface ChargeSavedInput extends PaymentRequest {
  method: SavedMethod;
}

export interface ChargeSavedResult {
  /** The provider's payment, when it made one (a refused card may leave none). */
  providerRef?: string;
  status: ProviderPaymentStatus;
  /** The provider's reason for a refusal, as it gave it. */
  error?: string;
  /** The saved method can never be charged again (lost or expired card, revoked mandate). */
  unusable?: boolean;
}

export interface CreatePaymentResult {
  providerRef: string;
  /** Hosted payment page to send the browser to. */
  redirectUrl?: string;
  /** For embedded flows (Stripe Elements). */
  clientSecret?: string;
  publishableKey?: string;
  /** A charge made without a redirect (a saved mandate) answers its status at once. */
  status?: ProviderPaymentStatus;
}

export interface ProviderPaymentState {
  providerRef: string;
  merchantRef?: string;
  status: ProviderPaymentStatus;
  amountMinor?: number;
  currency?: string;
}

export interface WebhookRequest {
  rawBody: Buffer;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed form or JSON fields, when the provider posts a form. */
  fields: Record<string, unknown>;
}

export interface VerifiedWebhook {
  eventId: string;
  kind: string;
  providerRef?: string;
  merchantRef?: string;
  /** State carried by the notification, used when the provider has no lookup. */
  state?: ProviderPaymentState;
}

export interface PaymentProvider {
  readonly id: ProviderId;
  create(input: CreatePaymentInput): Promise<CreatePaymentResult>;
  /** Throws WebhookRejected for a bad signature, a stale timestamp or a malformed body. */
  verifyWebhook(request: WebhookRequest): Promise<VerifiedWebhook> | VerifiedWebhook;
  /** The provider's current view of a payment, when it offers a lookup. */
  fetchState?(providerRef: string): Promise<ProviderPaymentState>;
  /** Gives a paid payment's money back in full (a customer's money-back request); providers without a refund API lack it. */
  refund?(providerRef: string): Promise<unknown>;
  /** The method a succeeded payment saved for renewals; null when it saved none. Providers that cannot renew lack it. */
  savedMethodOf?(providerRef: string, userId: number): Promise<SavedMethod | null>;
  /** Charges a saved method without the customer (a renewal). Providers that cannot renew lack it. */
  chargeSaved?(input: ChargeSavedInput): Promise<ChargeSavedResult>;
  /**
   * Forgets a saved method for good (the account was deleted): the provider deletes what it keeps
   * to charge the customer again. Providers that keep nothing, or offer no such call, lack it.
   */
  forgetMethod?(method: SavedMethod): Promise<void>;
  /**
   * Takes one saved method off the customer it was saved on, the customer staying (issue 23: the
   * old card after a card change). Already gone at the provider counts as done. Providers whose
   * methods cannot be changed (no startMethodUpdate) lack it.
   */
  detachMethod?(method: { methodRef: string; customerRef?: string | null }): Promise<void>;
  /**
   * Starts the provider's own page where the customer saves a new method for renewals without
   * paying (issue 23: "change the card"): Stripe Checkout in setup mode, the sandbox's page with no
   * charge. Providers without such a flow (Payssion, Cardlink) lack it, and the UI says so.
   */
  startMethodUpdate?(input: MethodUpdateInput): Promise<{ providerRef: string; redirectUrl: string }>;
  /** The method a finished update saved; null while it is not finished (or was abandoned). */
  methodOfUpdate?(providerRef: string): Promise<SavedMethod | null>;
  /** Body the provider expects as acknowledgement. */
  readonly ack: { contentType: string; body: string };
}

export class WebhookRejected extends Error {}

/** Webhooks older than this are refused, as Stripe does (replay protection). */
export const WEBHOOK_TOLERANCE_S = 300;
