import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import type { CreatePaymentResult } from '@warren/contract';
import { getBrand } from '../brand';
import { closeAllDialogs } from '../confirm';
import { refreshUser, session } from '../session';
import { STORAGE_KEYS, storage } from '../storage';
import { isPaymentSuccessMessage } from './payment-return';

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
 * The payment success message (spec section 4): a `paymentSuccess` post from the provider's page
 * (popup or frame) refreshes the user, opens /thank-you and closes every dialog.
 */
export function usePaymentSuccessMessage(): void {
  const navigate = useNavigate();
  useEffect(() => {
    const onMessage = (event: MessageEvent) => {
      if (!isPaymentSuccessMessage(event, window.location.origin, getBrand().redirectHosts)) return;
      session.setPaymentStatus('processed');
      closeAllDialogs();
      void refreshUser()
        .catch(() => null)
        .finally(() => navigate('/thank-you'));
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [navigate]);
}
