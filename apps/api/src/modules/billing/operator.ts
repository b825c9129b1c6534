import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/client.js';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { userPlansRepository } from '../users/index.js';
import { userIdByEmail } from '../users/index.js';
import type { Catalogue } from './catalogue.js';
import type { PricesService } from './prices.js';
import type { ReconciliationService } from './reconcile.js';
import { billingRepository, lockSubscription } from './repository.js';
import { isWithinMoneyBack } from './subscription.js';

export interface OperatorDeps {
  db: Database;
  catalogue: Catalogue;
  prices: PricesService;
  reconciliation: ReconciliationService;
  moneyBackDays: number;
  now: () => Date;
}

/** What operators do by hand (`npx warren billing …`, support): grants, refunds, prices, a member's payments. */
export function operatorService(deps: OperatorDeps) {
  const { prices, reconciliation, now } = deps;
  const repo = billingRepository(deps.db);

  async function refundLocked(publicId: string, opts: { force?: boolean } = {}) {
    const payment = await repo.paymentByPublicId(publicId);
    if (!payment) throw new NotFoundError('No such payment.');
    if (payment.status !== 'succeeded') throw new ValidationError({ payment: [`The payment is ${payment.status}.`] });
    if (!opts.force && !isWithinMoneyBack(new Date(payment.paid_at ?? payment.created_at), now(), deps.moneyBackDays)) {
      throw new ValidationError({
        payment: [`The ${deps.moneyBackDays}-day money-back window has passed (use --force).`],
      });
    }
    const { refunded } = await reconciliation.reconcile(payment, {
      providerRef: payment.provider_ref ?? '',
      status: 'refunded',
    });
    // A parallel refund of the same payment got there first: it took the period back, this one did nothing.
    if (!refunded) throw new ConflictError('This payment was already refunded.');
    return (await repo.paymentById(payment.id))!;
  }

  return {
    /** The member with this email (not deleted), or undefined. */
    async userIdByEmail(email: string): Promise<number | undefined> {
      return userIdByEmail(deps.db, email);
    },

    /** A member's payments, oldest first. */
    payments: (userId: number) => repo.paymentsOf(userId),

    prices: () => repo.allPrices(),
    /** One price until the next catalogue sync. */
    setPrice: (priceList: string, tariffId: number, currency: string, amountMinor: number) =>
      repo.setPrice(priceList, tariffId, currency, amountMinor),

    /**
     * Operator refund: inside the money-back window unless forced; records that the money went back
     * and takes back the period it bought (refunds.giveBack asks the provider first). Under the
     * subscription's lock, as a renewal charge is.
     */
    async refund(publicId: string, opts: { force?: boolean } = {}) {
      const found = await repo.paymentByPublicId(publicId);
      if (!found) throw new NotFoundError('No such payment.');
      return lockSubscription(deps.db, found.user_id, () => refundLocked(publicId, opts));
    },
    /** The same, for a caller that holds the subscription's lock already (refunds.giveBack). */
    refundHeld: refundLocked,

    /**
     * Support grants N days (the operator console): a zero-amount grant payment like `grant`, whose
     * period is those days on the member's current paid tariff (the shortest paid period for a free
     * member). Refunding it takes exactly those days back. A lifetime plan has no end to move.
     */
    async grantDays(userId: number, days: number) {
      if (!Number.isInteger(days) || days < 1 || days > 3650)
        throw new ValidationError({ days: ['Between 1 and 3650 days.'] });
      const plan = await userPlansRepository(deps.db).plan(userId);
      if (!plan) throw new NotFoundError('No such user.');
      const tariffs = (await prices.tariffs()).filter((t) => !t.is_free && !t.is_lifetime && t.period_days);
      if (plan.tariff_key !== 'free-plan' && plan.subscription_expires_at === null)
        throw new ValidationError({ days: ['The customer has a lifetime plan: there is no end date to move.'] });
      const current = plan.tariff_key !== 'free-plan' ? tariffs.find((t) => t.key === plan.tariff_key) : undefined;
      const tariff = current ?? [...tariffs].sort((a, b) => (a.period_days ?? 0) - (b.period_days ?? 0))[0];
      if (!tariff) throw new ValidationError({ days: ['No paid plan to grant days on.'] });
      const { payment } = await repo.insertPayment({
        public_id: `grant_${randomUUID().replace(/-/g, '')}`,
        user_id: userId,
        tariff_id: tariff.id,
        currency: deps.catalogue.currencies[0]!,
        amount_minor: 0,
        price_list: 'grant',
        promo_code: null,
        provider: 'grant',
        idempotency_key: randomUUID(),
        return_url: null,
        grant_days: days,
      });
      await reconciliation.reconcile(payment, { providerRef: payment.public_id, status: 'succeeded' });
      return (await repo.paymentById(payment.id))!;
    },

    /**
     * Operator grant (support, tests): applies a tariff as an internal zero-amount payment.
     *
     * What a grant triggers, the same from the API and the CLI (both get this service from
     * composition.ts, with the same after-payment hook): the plan is extended like a payment
     * would, the account becomes Active and the member gets the grant mail (their access
     * changed). It is not a purchase: nobody paid, so it earns no friend reward days (the
     * rewards hook runs and ignores it) and sends no conversion postback, and it does not use up
     * the member's first purchase: their first real payment later still rewards the friend who
     * invited them and fires the postbacks.
     */
    async grant(userId: number, tariffKey: string) {
      const tariff = (await prices.tariffs()).find((t) => t.key === tariffKey && !t.is_free);
      if (!tariff) throw new ValidationError({ tariff: ['Unknown paid tariff.'] });
      const { payment } = await repo.insertPayment({
        public_id: `grant_${randomUUID().replace(/-/g, '')}`,
        user_id: userId,
        tariff_id: tariff.id,
        currency: deps.catalogue.currencies[0]!,
        amount_minor: 0,
        price_list: 'grant',
        promo_code: null,
        provider: 'grant',
        idempotency_key: randomUUID(),
        return_url: null,
      });
      await reconciliation.reconcile(payment, { providerRef: payment.public_id, status: 'succeeded' });
      return (await repo.paymentById(payment.id))!;
    },
  };
}
export type OperatorService = ReturnType<typeof operatorService>;
