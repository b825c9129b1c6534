import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isActivated, type CreatePaymentResult, type User } from '@warren/contract';
import { getBrand } from '../brand';
import { session } from '../session';
import { STORAGE_KEYS, storage } from '../storage';
import { errorBodyOf, errorText } from '../http-error';
import { captchaErrorText, type Captcha } from '../captcha';
import { useCreatePayment, type CreatePaymentInput } from './create-payment';

/** Where every provider sends the browser back: zg/paymentEvent sorts succeeded from failed. */
export const PAYMENT_RETURN_PATH = '/zg/paymentEvent';

/** One key per checkout attempt (URL-safe, 32 hex characters). */
export function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID().replace(/-/g, '');
  // randomUUID needs a secure context; plain-http previews fall back to getRandomValues.
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export type PaymentNext = { kind: 'redirect'; url: string } | { kind: 'thankYou' } | { kind: 'unsupported' };

/** What to do with a createPayment answer: a hosted page, a charge already made (saved mandate), or nothing we can show. */
export function nextStep(result: Pick<CreatePaymentResult, 'redirectUrl' | 'status'>): PaymentNext {
  if (result.redirectUrl && /^(https?:\/\/|\/)/i.test(result.redirectUrl))
    return { kind: 'redirect', url: result.redirectUrl };
  if (result.status === 'succeeded' || result.status === 'pending') return { kind: 'thankYou' };
  return { kind: 'unsupported' };
}

/**
 * Before leaving for the provider: the thank-you guard needs the plan name, and the session
 * says a payment is processing (spec section 4) until the provider's answer comes back. Only
 * for a buyer who is not activated yet: a paying member renewing keeps the dashboard whatever
 * becomes of this payment (abandoned at the provider, declined, late).
 */
export function beginPayment(
  tariffName: string,
  user: Pick<User, 'verified' | 'accountStatus'> | null = session.get().user,
  paymentFirst = getBrand().paymentFirst,
): void {
  storage.set(STORAGE_KEYS.tariffName, tariffName);
  if (!user || !isActivated(user, paymentFirst)) session.setPaymentStatus('processing');
}

/**
 * Back from the provider's page with the browser's Back button: the page comes out of the
 * back/forward cache as it was left (Pay button busy, payment processing). Nothing was paid
 * that we know of: the page is usable again and the session no longer waits for a payment.
 */
export function onReturnFromProvider(
  reset: () => void,
  w: Pick<Window, 'addEventListener' | 'removeEventListener'> = window,
): () => void {
  const onShow = (e: Event) => {
    if (!(e as PageTransitionEvent).persisted) return;
    session.setPaymentStatus('processed');
    reset();
  };
  w.addEventListener('pageshow', onShow);
  return () => w.removeEventListener('pageshow', onShow);
}

/**
 * The Pay button of both checkouts (/checkout* and /plans). `attempt` names what is being
 * bought (plan, currency, method, account...): while it stays the same, retries and double
 * clicks reuse one idempotency key, so the provider sees one payment. `prepare` runs first
 * (the one-step checkout signs the visitor up or in) and may stop the payment. With a captcha,
 * each createPayment takes its own token after `prepare` (which used one of its own): a retry
 * reuses the idempotency key but never a token.
 */
export function usePay(attempt: string, captcha?: Pick<Captcha, 'take'>) {
  const { t } = useTranslation();
  const payment = useCreatePayment();
  const keyRef = useRef<{ attempt: string; key: string } | null>(null);
  if (!keyRef.current || keyRef.current.attempt !== attempt) keyRef.current = { attempt, key: newIdempotencyKey() };
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => onReturnFromProvider(() => setBusy(false)), []);

  /** Resolves false when the payment was refused or failed to start, true when the browser is on its way to pay. */
  const pay = async (
    input: Omit<CreatePaymentInput, 'idempotencyKey' | 'returnPath'>,
    tariffName: string,
    prepare?: () => Promise<boolean>,
  ): Promise<boolean | undefined> => {
    if (busy) return undefined;
    setError(null);
    setBusy(true);
    let leaving = false;
    try {
      if (prepare && !(await prepare())) return undefined;
      const captchaToken = await captcha?.take();
      const result = await payment.mutateAsync({
        ...input,
        idempotencyKey: keyRef.current!.key,
        returnPath: PAYMENT_RETURN_PATH,
        'g-recaptcha-response': captchaToken,
      });
      const next = nextStep(result);
      if (next.kind === 'unsupported') {
        setError(t('payment.unsupported'));
        return false;
      }
      beginPayment(tariffName);
      leaving = true;
      window.location.assign(next.kind === 'redirect' ? next.url : '/thank-you');
      return true;
    } catch (err) {
      setError(captchaErrorText(err, t) ?? errorText(errorBodyOf(err), t('payment.createFailed')));
      return false;
    } finally {
      // Leaving for the provider: the button stays busy until the page is gone (or comes back from the cache).
      if (!leaving) setBusy(false);
    }
  };
  return { pay, busy, error };
}
