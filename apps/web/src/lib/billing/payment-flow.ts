import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { CreatePaymentResult } from '@warren/contract';
import { session } from '../session';
import { STORAGE_KEYS, storage } from '../storage';
import { errorBodyOf, errorText } from '../http-error';
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
  if (result.redirectUrl && /^(https?:\/\/|\/)/i.test(result.redirectUrl)) return { kind: 'redirect', url: result.redirectUrl };
  if (result.status === 'succeeded' || result.status === 'pending') return { kind: 'thankYou' };
  return { kind: 'unsupported' };
}

/**
 * Before leaving for the provider: the thank-you guard needs the plan name, and the session
 * says a payment is processing (spec section 4) until the provider's answer comes back.
 */
export function beginPayment(tariffName: string): void {
  storage.set(STORAGE_KEYS.tariffName, tariffName);
  session.setPaymentStatus('processing');
}

/**
 * The Pay button of both checkouts (/checkout* and /plans). `attempt` names what is being
 * bought (plan, currency, method, account...): while it stays the same, retries and double
 * clicks reuse one idempotency key, so the provider sees one payment. `prepare` runs first
 * (the one-step checkout signs the visitor up or in) and may stop the payment.
 */
export function usePay(attempt: string) {
  const { t } = useTranslation();
  const payment = useCreatePayment();
  const keyRef = useRef<{ attempt: string; key: string } | null>(null);
  if (!keyRef.current || keyRef.current.attempt !== attempt) keyRef.current = { attempt, key: newIdempotencyKey() };
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const pay = async (input: Omit<CreatePaymentInput, 'idempotencyKey' | 'returnPath'>, tariffName: string, prepare?: () => Promise<boolean>) => {
    if (busy) return;
    setError(null);
    setBusy(true);
    try {
      if (prepare && !(await prepare())) return;
      const result = await payment.mutateAsync({ ...input, idempotencyKey: keyRef.current!.key, returnPath: PAYMENT_RETURN_PATH });
      const next = nextStep(result);
      if (next.kind === 'unsupported') {
        setError(t('payment.unsupported'));
        return;
      }
      beginPayment(tariffName);
      window.location.assign(next.kind === 'redirect' ? next.url : '/thank-you');
    } catch (err) {
      setError(errorText(errorBodyOf(err), t('payment.createFailed')));
    } finally {
      setBusy(false);
    }
  };
  return { pay, busy, error };
}
