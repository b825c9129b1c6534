import type { RefundOutcome } from '@warren/contract';
import type { Database } from '../../db/client.js';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import type { PaymentProvider } from '../../payments/provider.js';
import type { OperatorService } from './operator.js';
import { refundRequestRepository } from './refund-request-repository.js';
import { renewalsRepository } from './renewals-repository.js';
import { type PaymentRow, billingRepository, lockSubscription } from './repository.js';

const DAY_MS = 86_400_000;

/** The money-back window's end for a paid payment (a support grant has none). */
export function refundableUntil(p: PaymentRow, moneyBackDays: number): Date | null {
  if (p.provider === 'grant' || p.amount_minor <= 0 || !p.paid_at) return null;
  // Its unused part was credited into a plan switch (issue 23): that money is in the new plan already.
  if (p.superseded_by) return null;
  return new Date(new Date(p.paid_at).getTime() + moneyBackDays * DAY_MS);
}

/** A provider that gives money back through its API (the sandbox, Stripe). */
export function canRefundAt(
  provider: PaymentProvider | undefined,
): provider is PaymentProvider & Required<Pick<PaymentProvider, 'refund'>> {
  return typeof provider?.refund === 'function';
}

export interface RefundRequestDeps {
  db: Database;
  providers: Partial<Record<string, PaymentProvider>>;
  operator: Pick<OperatorService, 'refundHeld'>;
  moneyBackDays: number;
  now: () => Date;
}

/**
 * The money-back guarantee from the dashboard: inside the window, once per payment, through the
 * provider; then the operator's refund takes back exactly the period that payment bought, and
 * the plan and VPN access follow at once (the users row's trigger writes the VPN change log).
 */
export function refundRequestService(deps: RefundRequestDeps) {
  const repo = billingRepository(deps.db);
  const requests = refundRequestRepository(deps.db);
  const renewals = renewalsRepository(deps.db);

  /**
   * Gives a paid payment's money back and takes back the period it bought, under the
   * subscription's lock (a renewal charge of the same subscription waits, or finished first) and
   * with auto-renew off before the provider is asked: no renewal charge can follow the money
   * back (issue 20). Through the provider's refund call when it has one and the payment moved
   * money (claimed once: a parallel refund gets a 409); otherwise only recorded (the money went
   * back at the provider by hand). A provider that refuses leaves everything as it was.
   */
  async function giveBack(
    payment: PaymentRow,
    opts: { providerRefused: string; verifyAtProvider?: boolean },
  ): Promise<{ viaProvider: boolean }> {
    return lockSubscription(deps.db, payment.user_id, async (lock) => {
      // Read again under the lock: a refund that held it may have finished meanwhile.
      const current = await repo.paymentById(payment.id);
      if (!current || current.status === 'refunded') throw new ConflictError('This payment was already refunded.');
      const provider = deps.providers[current.provider];
      const viaProvider = canRefundAt(provider) && !!current.provider_ref && current.amount_minor > 0;
      if (viaProvider && !(await requests.claim(current.id, current.user_id)))
        throw new ConflictError('A refund for this payment is already under way.');
      const renewal = await renewals.get(current.user_id);
      if (renewal?.auto_renew) await renewals.setAutoRenew(current.user_id, false);
      if (viaProvider) {
        if (lock.signal.aborted) {
          // Lost the lock (its connection died): a renewal charge may run now; this run refunds nothing (503, try again).
          await requests.release(current.id);
          if (renewal?.auto_renew) await renewals.setAutoRenew(current.user_id, true);
          lock.signal.throwIfAborted();
        }
        try {
          await provider.refund(current.provider_ref!);
          // The provider's own view decides, where it offers one: only money that went back takes the period back.
          const state =
            opts.verifyAtProvider && provider.fetchState ? await provider.fetchState(current.provider_ref!) : undefined;
          if (state && state.status !== 'refunded') throw new Error(`provider state ${state.status}`);
        } catch {
          await requests.release(current.id);
          if (renewal?.auto_renew) await renewals.setAutoRenew(current.user_id, true);
          throw new ConflictError(opts.providerRefused);
        }
      }
      await deps.operator.refundHeld(current.public_id, { force: true });
      return { viaProvider };
    });
  }

  return {
    giveBack,
    /**
     * 'refunded': the provider gave the money back and the period is taken back now. 'requested': the
     * provider has no refund call (Payssion, Cardlink): the request is recorded, once per payment, and
     * support completes it (`warren billing refund-requests`, then `warren billing refund`).
     */
    async request(userId: number, publicId: string): Promise<RefundOutcome> {
      const payment = await repo.paymentByPublicId(publicId);
      if (!payment || payment.user_id !== userId) throw new NotFoundError('No such payment.');
      if (payment.status === 'refunded') throw new ConflictError('This payment was already refunded.');
      if (payment.superseded_by)
        throw new ValidationError({
          payment: ['The unused part of this payment went into your plan switch: it cannot be refunded on its own.'],
        });
      const until = refundableUntil(payment, deps.moneyBackDays);
      if (payment.status !== 'succeeded' || until === null)
        throw new ValidationError({ payment: ['Only a paid purchase can be refunded.'] });
      if (deps.now() > until) {
        throw new ValidationError({
          payment: [
            `The ${deps.moneyBackDays}-day money-back window for this payment ended on ${until.toISOString().slice(0, 10)}.`,
          ],
        });
      }
      const provider = deps.providers[payment.provider];
      if (!canRefundAt(provider) || !payment.provider_ref) {
        // Recorded once (parallel and repeated requests find it there); support gives the money back.
        await requests.claim(payment.id, userId);
        return 'requested';
      }
      await giveBack(payment, {
        providerRefused: 'The payment provider did not accept the refund. Please try again later or write to support.',
        verifyAtProvider: true,
      });
      return 'refunded';
    },
    /** The requests support still has to complete, oldest first. */
    pending: () => requests.pending(),
  };
}
export type RefundRequestService = ReturnType<typeof refundRequestService>;
