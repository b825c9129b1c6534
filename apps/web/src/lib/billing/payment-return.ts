/**
 * zg/paymentEvent (spec section 2): where a provider's return lands the browser, from its
 * redirect_status. Stripe says `processing` for delayed methods (the thank-you page waits for
 * the webhook) and `requires_payment_method` / `canceled` for a failure.
 */
export function paymentReturnTarget(status: string | null): '/thank-you' | '/failed-payment' | '/plans' {
  switch ((status ?? '').toLowerCase()) {
    case 'succeeded':
    case 'success':
    case 'processing':
      return '/thank-you';
    case 'failed':
    case 'failure':
    case 'declined':
    case 'canceled':
    case 'cancelled':
    case 'requires_payment_method':
      return '/failed-payment';
    default:
      return '/plans';
  }
}

/** Provider pages that may post `paymentSuccess` to us besides our own origin (the sandbox). */
export const PROVIDER_ORIGINS = [
  'https://checkout.stripe.com',
  'https://js.stripe.com',
  'https://hooks.stripe.com',
  'https://www.payssion.com',
  'https://payssion.com',
  'https://cardlink.link',
] as const;

/**
 * The payment success message (spec section 4): `{ event: 'paymentSuccess' }` from our own
 * origin, a provider's origin or a host of the brand registry; anything else is ignored.
 */
export function isPaymentSuccessMessage(
  event: { origin: string; data: unknown },
  ownOrigin: string,
  brandHosts: readonly string[] = [],
): boolean {
  const data = event.data as { event?: unknown } | null;
  if (!data || typeof data !== 'object' || data.event !== 'paymentSuccess') return false;
  if (event.origin === ownOrigin || (PROVIDER_ORIGINS as readonly string[]).includes(event.origin)) return true;
  try {
    const url = new URL(event.origin);
    return url.protocol === 'https:' && brandHosts.map((h) => h.toLowerCase()).includes(url.host.toLowerCase());
  } catch {
    return false;
  }
}
