import type { RefundOutcome } from '@warren/contract';
import type { Database } from '../../db/client.js';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import type { PaymentProvider } from '../../payments/provider.js';
import type { OperatorService } from './operator.js';
import { refundRequestRepository } from './refund-request-repository.js';
import { type PaymentRow, billingRepository } from './repository.js';

const DAY_MS = 86_400_000;

/** The money-back window's end for a paid payment (a support grant has none). */
export function refundableUntil(p: PaymentRow, moneyBackDays: number): Date | null {
  if (p.provider === 'grant' || p.amount_minor <= 0 || !p.paid_at) return null;
  return new Date(new Date(p.paid_at).getTime() + moneyBackDays * DAY_MS);
}

/** A provider that gives money back through its API (the sandbox, Stripe). */
export function canRefundAt(provider: PaymentProvider | undefined): provider is PaymentProvider & Required<Pick<PaymentProvider, 'refund'>> {
  return typeof provider?.refund === 'function';
}

export interface RefundRequestDeps {
  db: Database;
  providers: Partial<Record<string, PaymentProvider>>;
  operator: Pick<OperatorService, 'refund'>;
  moneyBackDays: number;
  now: () => Date;
}


/**
 * The money-back guarantee from the dashboard: inside the window, once per payment, through the
 * provider; then the operator's refund takes back exactly the period that payment bought, and
 * the plan and VPN access follow at once (onSubscriptionChanged).
 */
export function refundRequestService(deps: RefundRequestDeps) {
  const repo = billingRepository(deps.db);
  const requests = refundRequestRepository(deps.db);
  return {
    /**
     * 'refunded': the provider gave the money back and the period is taken back now. 'requested': the
     * provider has no refund call (Payssion, Cardlink): the request is recorded, once per payment, and
     * support completes it (`warren billing refund-requests`, then `warren billing refund`).
     */
    async request(userId: number, publicId: string): Promise<RefundOutcome> {
      const payment = await repo.paymentByPublicId(publicId);
      if (!payment || payment.user_id !== userId) throw new NotFoundError('No such payment.');
      if (payment.status === 'refunded') throw new ConflictError('This payment was already refunded.');
      const until = refundableUntil(payment, deps.moneyBackDays);
      if (payment.status !== 'succeeded' || until === null) throw new ValidationError({ payment: ['Only a paid purchase can be refunded.'] });
      if (deps.now() > until) {
        throw new ValidationError({ payment: [`The ${deps.moneyBackDays}-day money-back window for this payment ended on ${until.toISOString().slice(0, 10)}.`] });
      }
      const provider = deps.providers[payment.provider];
      if (!canRefundAt(provider) || !payment.provider_ref) {
        // Recorded once (parallel and repeated requests find it there); support gives the money back.
        await requests.claim(payment.id, userId);
        return 'requested';
      }
      if (!(await requests.claim(payment.id, userId))) throw new ConflictError('A refund for this payment is already under way.');
      try {
        await provider.refund(payment.provider_ref);
        // The provider's own view decides, where it offers one: only money that went back takes the period back.
        const state = provider.fetchState ? await provider.fetchState(payment.provider_ref) : undefined;
        if (state && state.status !== 'refunded') throw new Error(`provider state ${state.status}`);
      } catch {
        await requests.release(payment.id);
        throw new ConflictError('The payment provider did not accept the refund. Please try again later or write to support.');
      }
      await deps.operator.refund(publicId, { force: true });
      return 'refunded';
    },
    /** The requests support still has to complete, oldest first. */
    pending: () => requests.pending(),
    /** Claims a payment's refund for staff (the operator console), as a customer's request does: true for the one claim that won. */
    claim: (payment: Pick<PaymentRow, 'id' | 'user_id'>) => requests.claim(payment.id, payment.user_id),
    /** Gives the claim back (the provider refused). */
    release: (payment: Pick<PaymentRow, 'id'>) => requests.release(payment.id),
    /** The provider's refund call, where it has one (the sandbox, Stripe). */
    refunder: (providerId: string) => {
      const provider = deps.providers[providerId];
      return canRefundAt(provider) ? provider : undefined;
    },
  };
}
export type RefundRequestService = ReturnType<typeof refundRequestService>;
