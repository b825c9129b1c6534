import { useMutation } from '@tanstack/react-query';
import type { CreatePaymentResult } from '@warren/contract';
import { api } from '../api-client';
import { restrictedPost, usesRestrictedCalls } from '../restricted-call';

export interface CreatePaymentInput {
  tariffId: number;
  currency: string;
  provider: string;
  type?: string;
  priceList?: string;
  promocode?: string;
  idempotencyKey: string;
  returnPath?: string;
  /** The UI language: a hosted page we serve (the sandbox) opens in it. */
  language?: 'en' | 'ru' | 'zh';
  /** Renew this plan automatically (false: a one-off payment, also for providers and plans that cannot renew). */
  autoRenew?: boolean;
  /** A captcha token of its own (single use) when the brand has a captcha. */
  'g-recaptcha-response'?: string;
}

/**
 * POST billing/createPayment (auth). The idempotency key is made once per checkout attempt, so
 * a double click or a retry after a network error reaches the provider as one payment.
 * Silent: the checkout shows the error next to its Pay button.
 */
export async function createPayment(input: CreatePaymentInput): Promise<CreatePaymentResult> {
  const json = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined && v !== ''));
  const body = usesRestrictedCalls()
    ? await restrictedPost<{ data: unknown }>(...restrictedPayment(json), { silent: true }, { withToken: true })
    : await api
        .post('billing/createPayment', {
          json,
          headers: { 'idempotency-key': input.idempotencyKey },
          context: { silent: true },
        })
        .json<{ data: unknown }>();
  const schemas = await import('./billing-schemas');
  return schemas.createPaymentResult.parse(body.data);
}

/** A restricted host pays through the spec's call for its provider, or restrictedCreatePayment (provider in the body) for the others. */
function restrictedPayment(json: Record<string, unknown>): [string, object] {
  const { provider, ...rest } = json;
  const named: Record<string, string> = {
    stripe: 'billing/getRestrictedStripePayment',
    payssion: 'billing/getRestrictedPayssionPaymentData',
    cardlink: 'billing/getRestrictedCardlinkPaymentData',
  };
  const path = named[String(provider)];
  return path ? [path, rest] : ['billing/restrictedCreatePayment', json];
}

export function useCreatePayment() {
  return useMutation({ mutationKey: ['billing', 'createPayment'], mutationFn: createPayment });
}
