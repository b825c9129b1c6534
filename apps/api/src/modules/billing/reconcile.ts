import type { Database } from '../../db/client.js';
import { BadRequestError, NotFoundError } from '../../lib/errors.js';
import type { Mailer } from '../../mail/mailer.js';
import { renderMail } from '../../mail/templates.js';
import type { PaymentProvider, ProviderPaymentState, WebhookRequest } from '../../payments/provider.js';
import { WebhookRejected } from '../../payments/provider.js';
import { userPlansRepository } from '../users/index.js';
import type { PricesService } from './prices.js';
import { DAY_MS, switchRefundTakesBack } from './plan-switch.js';
import { refundRequestRepository } from './refund-request-repository.js';
import { type PaymentRow, billingRepository, lockSubscription, postbackRepository } from './repository.js';
import { type SubscriptionState, extend, revoke } from './subscription.js';

/** Test-only seams the composition may pass in (test/crash.test.ts); production passes none. */
export interface BillingTestHooks {
  /** Runs after a webhook's event is recorded and the provider confirmed the capture, before the payment is applied. */
  afterCapture?: () => void;
}

export interface ReconcileDeps {
  db: Database;
  prices: PricesService;
  providers: Partial<Record<string, PaymentProvider>>;
  mailer: Mailer;
  defer: (task: () => Promise<unknown>) => void;
  postbackUrls: string[];
  brandName: (brandId: string) => string;
  /**
   * Called after a payment newly applied (rewards). `firstPurchase`: the member's first payment
   * through a provider; a support grant is never one (see operator.ts).
   */
  onPaymentApplied?: (payment: PaymentRow, firstPurchase: boolean) => Promise<void>;
  /** Called once when a payment newly fails or is refunded (metrics count outcomes by provider). */
  onPaymentOutcome?: (payment: PaymentRow, outcome: 'failed' | 'refunded') => void;
  /** Renewals (renewals.ts): the receipt mail, and what an applied payment or a refund means for the next renewal. */
  renewals?: () => {
    sendReceipt(p: PaymentRow): Promise<void>;
    sendRefundNotice(p: PaymentRow): Promise<void>;
    afterPayment(p: PaymentRow): Promise<void>;
    afterRefund(p: PaymentRow): Promise<void>;
  };
  testHooks?: BillingTestHooks;
  now: () => Date;
  /** Where a failure that must not fail the webhook is reported (the app's logger). */
  log?: { error: (obj: object, msg: string) => void };
}

const STATUS_RANK: Record<PaymentRow['status'], number> = { pending: 0, failed: 1, succeeded: 2, refunded: 3 };
const formatAmount = (minor: number, currency: string) => `${(minor / 100).toFixed(2)} ${currency}`;

/**
 * Provider events and reconciliation: a webhook is verified and recorded, the payment's state is
 * re-read from the provider, and our payment moves towards it (plan extended or taken back,
 * receipt, conversion postbacks). Also the lapse of plans over time.
 */
export function reconciliationService(deps: ReconcileDeps) {
  const { db, prices, now } = deps;
  const repo = billingRepository(db);

  async function subscriptionOf(
    plans: ReturnType<typeof userPlansRepository>,
    userId: number,
  ): Promise<SubscriptionState> {
    const u = await plans.lockPlan(userId);
    if (!u) throw new NotFoundError('No such user.');
    return {
      tariffKey: u.tariff_key,
      tariffName: u.tariff_name,
      expiresAt: u.subscription_expires_at ? new Date(u.subscription_expires_at) : null,
    };
  }

  /**
   * Moves a payment towards the provider's state. States only move forward
   * (pending → failed → succeeded → refunded), the subscription is extended exactly once
   * (the `applied` flag flips in the same transaction) and a refund takes back exactly that
   * period, so any order and any number of deliveries converge on one result.
   */
  function reconcile(
    payment: PaymentRow,
    state: ProviderPaymentState,
  ): Promise<{ applied: boolean; refunded: boolean }> {
    // A switch (issue 23) is applied under the subscription's lock: a renewal charge of the same
    // period and the switch never both extend it (the one that comes second finds its basis gone).
    if (payment.kind === 'switch' && state.status === 'succeeded')
      return lockSubscription(db, payment.user_id, () => reconcileUnlocked(payment, state));
    return reconcileUnlocked(payment, state);
  }

  /** A switch paid after the plan it was quoted against changed: the money goes back (the provider's refund, else support's list). */
  async function refundStale(p: PaymentRow) {
    const provider = deps.providers[p.provider];
    if (provider?.refund && p.provider_ref) {
      await provider.refund(p.provider_ref);
      await reconcileUnlocked(p, { providerRef: p.provider_ref, status: 'refunded' });
    } else await refundRequestRepository(db).claim(p.id, p.user_id);
  }

  async function reconcileUnlocked(
    payment: PaymentRow,
    state: ProviderPaymentState,
  ): Promise<{ applied: boolean; refunded: boolean }> {
    if (
      state.amountMinor !== undefined &&
      (state.amountMinor !== payment.amount_minor || (state.currency && state.currency !== payment.currency))
    ) {
      throw new WebhookRejected('amount or currency differs from the payment');
    }
    let applied: PaymentRow | undefined;
    let refunded: PaymentRow | undefined;
    let stale: PaymentRow | undefined;
    let failed = false;
    let firstPurchase = false;
    // Read the catalogue before the transaction: on PGlite a query outside the transaction waits for it (deadlock).
    const tariff = (await prices.tariffById(payment.tariff_id))!;
    const switchFrom =
      payment.kind === 'switch' && payment.switch_from_tariff_id
        ? await prices.tariffById(Number(payment.switch_from_tariff_id))
        : undefined;
    const freePlanName = await prices.freeName();
    await db.transaction(async (tx) => {
      const payments = billingRepository(tx);
      const plans = userPlansRepository(tx);
      const current = await payments.lockPayment(payment.id);
      if (!current) return;
      const target = state.status;
      if (
        STATUS_RANK[target] <= STATUS_RANK[current.status] &&
        !(target === 'succeeded' && !current.applied && current.status === 'succeeded')
      )
        return;
      if (target === 'failed' || target === 'pending') {
        if (current.status === 'pending' && target === 'failed') {
          await payments.markFailed(current.id);
          failed = true;
        }
        return;
      }
      if (target === 'succeeded' && current.kind === 'switch') {
        const sub = await subscriptionOf(plans, current.user_id);
        const basis = current.switch_basis_expires ? new Date(current.switch_basis_expires as string) : null;
        // Only while the plan it was quoted against still holds: the same plan, the same paid-until.
        const holds =
          !!basis && !!switchFrom && sub.tariffKey === switchFrom.key && sub.expiresAt?.getTime() === basis.getTime();
        if (!holds) {
          stale = await payments.markPaidNotApplied(
            current.id,
            'The plan changed before this switch was paid: the payment goes back.',
          );
          return;
        }
        // The new period starts at the quote (the payment's creation): the credit was worked out for that instant.
        const start = new Date(current.created_at);
        const end = new Date(start.getTime() + (tariff.period_days ?? 0) * DAY_MS);
        const row = await payments.markApplied(current.id, start, end);
        if (!row) return;
        await payments.supersede(current.user_id, current.id, start);
        const expiresAt = new Date(end.getTime() + Number(current.switch_carried_ms ?? 0));
        await plans.savePlan(current.user_id, { tariffKey: tariff.key, tariffName: tariff.name, expiresAt }, true);
        applied = row;
        return;
      }
      if (target === 'succeeded') {
        const sub = await subscriptionOf(plans, current.user_id);
        // A support grant of N days applies those days on the plan's tariff (operator.ts grantDays).
        const periodDays = current.grant_days ?? tariff.period_days;
        const { next, periodStart, periodEnd } = extend(
          sub,
          {
            key: tariff.key,
            name: tariff.name,
            periodDays,
            isLifetime: tariff.is_lifetime && !current.grant_days,
            isFree: tariff.is_free,
          },
          now(),
        );
        const row = await payments.markApplied(current.id, periodStart, periodEnd);
        if (!row) return;
        await plans.savePlan(current.user_id, next, true);
        if (current.promo_code) await payments.usePromo(current.promo_code);
        firstPurchase = current.provider !== 'grant' && (await payments.countPurchases(current.user_id)) === 1;
        applied = row;
        return;
      }
      // refunded
      if (current.applied) {
        const sub = await subscriptionOf(plans, current.user_id);
        const start = current.period_start ? new Date(current.period_start) : now();
        const end = current.period_end === null && tariff.is_lifetime ? null : new Date(current.period_end ?? start);
        const basis = current.switch_basis_expires ? new Date(current.switch_basis_expires as string) : null;
        if (current.kind === 'switch' && end && basis && switchFrom) {
          // A switch's money-back undoes it (plan-switch.ts): the time its credit paid for stays, on
          // the plan switched from, and the payments it credited are live again (their own money-back).
          const takesBack = switchRefundTakesBack({
            start,
            end,
            basisExpires: basis,
            carriedMs: Number(current.switch_carried_ms ?? 0),
          });
          const next = revoke(sub, { start: new Date(end.getTime() - takesBack), end }, now(), freePlanName);
          const back =
            next.tariffKey === sub.tariffKey && sub.tariffKey === tariff.key
              ? { ...next, tariffKey: switchFrom.key, tariffName: switchFrom.name }
              : next;
          await plans.savePlan(current.user_id, back, false);
          await payments.unsupersede(current.user_id, current.id);
        } else await plans.savePlan(current.user_id, revoke(sub, { start, end }, now(), freePlanName), false);
      }
      await payments.markRefunded(current.id);
      refunded = current;
    });
    const refund = refunded as PaymentRow | undefined;
    if (failed) deps.onPaymentOutcome?.(payment, 'failed');
    if (refund) deps.onPaymentOutcome?.(refund, 'refunded');
    // A refunded customer is not charged again unless they turn auto-renew back on (a refund that took no period back, a stale switch's, changes nothing).
    if (refund && refund.applied && deps.renewals) await deps.renewals().afterRefund(refund);
    if (stale) {
      const s = stale as PaymentRow;
      deps.defer(() =>
        refundStale(s).catch((err) =>
          deps.log?.error({ err, payment: s.public_id }, 'refunding a stale switch failed'),
        ),
      );
    }
    // Every refund passes here exactly once (the transition above): the owner is told, in the background.
    if (refund && deps.renewals) deps.defer(() => deps.renewals!().sendRefundNotice(refund));
    if (applied) {
      const p = applied as PaymentRow;
      const renewals = deps.renewals?.();
      if (renewals) {
        // The saved method and the next renewal: a provider lookup that fails here must not fail the webhook (the payment is applied).
        await renewals
          .afterPayment(p)
          .catch((err) => deps.log?.error({ err, payment: p.public_id }, 'saving the renewal method failed'));
        deps.defer(() => renewals.sendReceipt(p));
      } else deps.defer(() => sendReceipt(p));
      if (firstPurchase) deps.defer(() => queuePostbacks(p));
      if (deps.onPaymentApplied) await deps.onPaymentApplied(p, firstPurchase);
    }
    // Which transition this call made (parallel calls with one payment: exactly one of them makes it).
    return { applied: !!applied, refunded: !!refund };
  }

  async function sendReceipt(p: PaymentRow) {
    // A support grant is no payment: no "thank you for your payment" (the renewals service tells of it in words).
    if (p.provider === 'grant') return;
    const u = await userPlansRepository(db).plan(p.user_id);
    if (!u) return;
    const tariff = await prices.tariffById(p.tariff_id);
    const mail = renderMail('receipt', {
      language: (['en', 'ru', 'zh'].includes(u.language) ? u.language : 'en') as 'en',
      productName: deps.brandName(u.brand),
      vars: {
        plan: tariff?.name ?? '',
        planKey: tariff?.key ?? '',
        amount: formatAmount(p.amount_minor, p.currency),
        payment: p.public_id,
        until: u.subscription_expires_at ? new Date(u.subscription_expires_at).toISOString().slice(0, 10) : '∞',
        billedTo: '',
      },
    });
    await deps.mailer.send({ to: u.email, ...mail });
  }

  async function queuePostbacks(p: PaymentRow) {
    if (!deps.postbackUrls.length) return;
    const a = await userPlansRepository(db).attribution(p.user_id);
    const vars: Record<string, string> = {
      clickID: a.clickID ?? '',
      cid: a.cid ?? '',
      cid4: a.cid4 ?? '',
      voluumID: a.voluumID ?? '',
      vcommID: a.vcommID ?? '',
      myLeadID: a.myLeadID ?? '',
      papReferralID: a.papReferralID ?? '',
      amount: (p.amount_minor / 100).toFixed(2),
      currency: p.currency,
      paymentId: p.public_id,
    };
    const postbacks = postbackRepository(db);
    for (const template of deps.postbackUrls) {
      const url = template.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(vars[k] ?? ''));
      await postbacks.queue(p.user_id, p.id, url);
    }
  }

  return {
    reconcile,

    /** Verifies, records and applies one webhook delivery. */
    async handleWebhook(providerId: string, request: WebhookRequest): Promise<{ contentType: string; body: string }> {
      const provider = deps.providers[providerId];
      if (!provider) throw new NotFoundError();
      let verified;
      try {
        verified = await provider.verifyWebhook(request);
      } catch (err) {
        if (err instanceof WebhookRejected) throw new BadRequestError(`Webhook rejected: ${err.message}.`);
        throw err;
      }
      const payment =
        (verified.merchantRef && (await repo.paymentByPublicId(verified.merchantRef))) ||
        (verified.providerRef && (await repo.paymentByProviderRef(provider.id, verified.providerRef))) ||
        undefined;
      await repo.recordEvent(provider.id, verified.eventId, verified.kind, payment?.id ?? null);
      if (!payment || payment.provider !== provider.id) return provider.ack; // not ours (or another test mode): acknowledge, do nothing
      // Re-derive from the provider's object where it has one: arrival order does not matter.
      const ref = payment.provider_ref ?? verified.providerRef;
      const state = provider.fetchState && ref ? await provider.fetchState(ref) : verified.state;
      if (!state) return provider.ack;
      if (state.status === 'succeeded') deps.testHooks?.afterCapture?.();
      try {
        await reconcile(payment, state);
      } catch (err) {
        if (err instanceof WebhookRejected) throw new BadRequestError(`Webhook rejected: ${err.message}.`);
        throw err;
      }
      return provider.ack;
    },

    /** The scheduled job: lapsed subscriptions return to the free plan (as of `asOf`, default now: `renew-due --as-of`). */
    async expireSubscriptions(asOf: Date = now()): Promise<number[]> {
      const ids = await userPlansRepository(db).expireLapsed(await prices.freeName(), asOf);
      return ids;
    },
  };
}
export type ReconciliationService = ReturnType<typeof reconciliationService>;
