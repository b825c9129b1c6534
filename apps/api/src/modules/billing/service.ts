import { randomUUID } from 'node:crypto';
import type { CreatePaymentBody, CreatePaymentResult, PlanInfo, TariffPrice } from '@warren/contract';
import { type guestPriceData, specialOfferSecondsLeft } from '@warren/contract';
import type { z } from 'zod';
type GuestPriceData = z.infer<typeof guestPriceData>;
import type { Database, Queryable } from '../../db/client.js';
import { BadRequestError, ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.js';
import type { Mailer } from '../../mail/mailer.js';
import { renderMail } from '../../mail/templates.js';
import type { PaymentProvider, ProviderPaymentState, WebhookRequest } from '../../payments/provider.js';
import { WebhookRejected } from '../../payments/provider.js';
import type { UserRow } from '../users/repository.js';
import type { Catalogue } from './catalogue.js';
import { PROMO_MESSAGES, applyPercentOff, promoProblem, resolvePrice } from './pricing.js';
import { type PaymentRow, type TariffRow, billingRepository } from './repository.js';
import { safeReturnUrl } from './return-url.js';
import { type SubscriptionState, extend, isWithinMoneyBack, revoke } from './subscription.js';

export interface BillingDeps {
  db: Database;
  catalogue: Catalogue;
  providers: Partial<Record<string, PaymentProvider>>;
  mailer: Mailer;
  defer: (task: () => Promise<unknown>) => void;
  moneyBackDays: number;
  postbackUrls: string[];
  isKnownHost: (host: string) => boolean;
  brandName: (brandId: string) => string;
  /** Called after a payment newly applied (rewards, VPN access changes). */
  onPaymentApplied?: (payment: PaymentRow, firstPayment: boolean) => Promise<void>;
  onSubscriptionChanged?: (userId: number) => Promise<void>;
  now?: () => Date;
}

const PROCESSING_WINDOW_MS = 30 * 60_000;
const STATUS_RANK: Record<PaymentRow['status'], number> = { pending: 0, failed: 1, succeeded: 2, refunded: 3 };

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
const formatAmount = (minor: number, currency: string) => `${(minor / 100).toFixed(2)} ${currency}`;

export function billingService(deps: BillingDeps) {
  const { db, catalogue } = deps;
  // TEST-ONLY fault injection (test/crash.test.ts), read here and nowhere else:
  // WARREN_FAULT=kill-after-capture SIGKILLs the process after a webhook's event is recorded and the
  // provider confirmed the capture, before the payment is applied. Refused in production.
  const fault = process.env.WARREN_FAULT;
  if (fault && process.env.NODE_ENV === 'production') throw new Error('WARREN_FAULT is a test-only switch and is refused in production.');
  if (fault && fault !== 'kill-after-capture') throw new Error(`Unknown WARREN_FAULT: ${fault}`);
  const repo = billingRepository(db);
  const now = deps.now ?? (() => new Date());
  let tariffCache: TariffRow[] | undefined;
  const tariffs = async () => (tariffCache ??= await repo.tariffs());
  const tariffById = async (id: number) => (await tariffs()).find((t) => t.id === id);
  const freeName = async () => (await tariffs()).find((t) => t.is_free)?.name ?? 'Free';

  function currencyFor(country: string | undefined): string {
    return (country && catalogue.countryCurrency[country]) || catalogue.currencies[0]!;
  }
  function checkCurrency(currency: string) {
    if (!catalogue.currencies.includes(currency)) throw new ValidationError({ currency: ['This currency is not supported.'] });
  }

  async function quote(tariffId: number, currency: string, priceList: string, promocode: string | undefined) {
    const tariff = await tariffById(tariffId);
    if (!tariff || tariff.is_free) throw new ValidationError({ tariffId: ['This plan does not exist.'] });
    checkCurrency(currency);
    const lists = await repo.priceLists();
    if (!lists.includes(priceList)) throw new ValidationError({ priceList: ['Unknown price list.'] });
    const price = resolvePrice(await repo.prices(), tariffId, currency, priceList);
    if (!price) throw new ValidationError({ tariffId: ['This plan is not sold in this currency.'] });
    let amountMinor = price.amountMinor;
    let promo: { code: string; percentOff: number } | null = null;
    if (promocode) {
      const row = await repo.promo(promocode);
      const problem = promoProblem(row, tariffId, now());
      if (problem) throw new ValidationError({ promocode: [PROMO_MESSAGES[problem]] });
      promo = { code: row!.code, percentOff: row!.percent_off };
      amountMinor = applyPercentOff(amountMinor, row!.percent_off);
    }
    return { tariff, amountMinor, listAmountMinor: price.listAmountMinor, priceList: price.priceList, promo };
  }

  function toTariffPrice(t: TariffRow, currency: string, amount: number, listAmount: number): TariffPrice {
    return {
      tariffId: t.id,
      key: t.key,
      name: t.name,
      periodDays: t.period_days,
      isLifetime: t.is_lifetime,
      isTrial: t.is_trial,
      currency,
      amount,
      listAmount,
      discountPercent: listAmount > amount ? Math.round(((listAmount - amount) / listAmount) * 100) : 0,
      monthlyAmount: t.period_days ? Math.round((amount * 30) / t.period_days) : null,
    };
  }

  async function subscriptionOf(tx: Queryable, userId: number): Promise<SubscriptionState & { email: string; language: string; verified: boolean }> {
    const [u] = await tx.query<{ tariff_key: string; tariff_name: string; subscription_expires_at: string | Date | null; email: string; language: string; verified: boolean }>(
      'select tariff_key, tariff_name, subscription_expires_at, email, language, verified from users where id = $1 for update',
      [userId],
    );
    if (!u) throw new NotFoundError('No such user.');
    return { tariffKey: u.tariff_key, tariffName: u.tariff_name, expiresAt: u.subscription_expires_at ? new Date(u.subscription_expires_at) : null, email: u.email, language: u.language, verified: u.verified };
  }
  async function saveSubscription(tx: Queryable, userId: number, s: SubscriptionState, activate: boolean) {
    await tx.query(
      `update users set tariff_key = $2, tariff_name = $3, subscription_expires_at = $4,
         account_status = case when $5 then 'Active' else account_status end, updated_at = now() where id = $1`,
      [userId, s.tariffKey, s.tariffName, s.expiresAt, activate],
    );
  }

  /**
   * Moves a payment towards the provider's state. States only move forward
   * (pending → failed → succeeded → refunded), the subscription is extended exactly once
   * (the `applied` flag flips in the same transaction) and a refund takes back exactly that
   * period, so any order and any number of deliveries converge on one result.
   */
  async function reconcile(payment: PaymentRow, state: ProviderPaymentState): Promise<void> {
    if (state.amountMinor !== undefined && (state.amountMinor !== payment.amount_minor || (state.currency && state.currency !== payment.currency))) {
      throw new WebhookRejected('amount or currency differs from the payment');
    }
    let applied: PaymentRow | undefined;
    let firstPayment = false;
    let changed = false;
    // Read the catalogue before the transaction: on PGlite a query outside the transaction waits for it (deadlock).
    const tariff = (await tariffById(payment.tariff_id))!;
    const freePlanName = await freeName();
    await db.transaction(async (tx) => {
      const [current] = await tx.query<PaymentRow>('select * from payments where id = $1 for update', [payment.id]);
      if (!current) return;
      const target = state.status;
      if (STATUS_RANK[target] <= STATUS_RANK[current.status] && !(target === 'succeeded' && !current.applied && current.status === 'succeeded')) return;
      if (target === 'failed' || target === 'pending') {
        if (current.status === 'pending' && target === 'failed') await tx.query(`update payments set status = 'failed' where id = $1`, [current.id]);
        return;
      }
      if (target === 'succeeded') {
        const sub = await subscriptionOf(tx, current.user_id);
        const { next, periodStart, periodEnd } = extend(sub, { key: tariff.key, name: tariff.name, periodDays: tariff.period_days, isLifetime: tariff.is_lifetime, isFree: tariff.is_free }, now());
        const [row] = await tx.query<PaymentRow>(
          `update payments set status = 'succeeded', applied = true, paid_at = coalesce(paid_at, now()), period_start = $2, period_end = $3
           where id = $1 and applied = false returning *`,
          [current.id, periodStart, periodEnd],
        );
        if (!row) return;
        await saveSubscription(tx, current.user_id, next, true);
        if (current.promo_code) await billingRepository(tx).usePromo(current.promo_code);
        const [{ n }] = (await tx.query<{ n: number }>(`select count(*)::int as n from payments where user_id = $1 and applied = true`, [current.user_id])) as [{ n: number }];
        firstPayment = n === 1;
        applied = row;
        changed = true;
        return;
      }
      // refunded
      if (current.applied) {
        const sub = await subscriptionOf(tx, current.user_id);
        const start = current.period_start ? new Date(current.period_start) : now();
        const end = current.period_end === null && tariff.is_lifetime ? null : new Date(current.period_end ?? start);
        await saveSubscription(tx, current.user_id, revoke(sub, { start, end }, now(), freePlanName), false);
        changed = true;
      }
      await tx.query(`update payments set status = 'refunded', refunded_at = now() where id = $1`, [current.id]);
    });
    if (applied) {
      const p = applied as PaymentRow;
      deps.defer(() => sendReceipt(p));
      if (firstPayment) deps.defer(() => queuePostbacks(p));
      if (deps.onPaymentApplied) await deps.onPaymentApplied(p, firstPayment);
    }
    if (changed && deps.onSubscriptionChanged) await deps.onSubscriptionChanged(payment.user_id);
  }

  async function sendReceipt(p: PaymentRow) {
    const [u] = await db.query<{ email: string; language: string; brand: string; subscription_expires_at: string | null }>(
      'select email, language, brand, subscription_expires_at from users where id = $1',
      [p.user_id],
    );
    if (!u) return;
    const tariff = await tariffById(p.tariff_id);
    const mail = renderMail('receipt', {
      language: (['en', 'ru', 'zh'].includes(u.language) ? u.language : 'en') as 'en',
      productName: deps.brandName(u.brand),
      vars: {
        plan: tariff?.name ?? '',
        amount: formatAmount(p.amount_minor, p.currency),
        payment: p.public_id,
        until: u.subscription_expires_at ? new Date(u.subscription_expires_at).toISOString().slice(0, 10) : '∞',
      },
    });
    await deps.mailer.send({ to: u.email, ...mail });
  }

  async function queuePostbacks(p: PaymentRow) {
    if (!deps.postbackUrls.length) return;
    const [u] = await db.query<{ attribution: Record<string, string> }>('select attribution from users where id = $1', [p.user_id]);
    const a = u?.attribution ?? {};
    const vars: Record<string, string> = {
      clickID: a.clickID ?? '', voluumID: a.voluumID ?? '', vcommID: a.vcommID ?? '', myLeadID: a.myLeadID ?? '', papReferralID: a.papReferralID ?? '',
      amount: (p.amount_minor / 100).toFixed(2), currency: p.currency, paymentId: p.public_id,
    };
    for (const template of deps.postbackUrls) {
      const url = template.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(vars[k] ?? ''));
      await db.query(`insert into conversion_postbacks (user_id, payment_id, url) values ($1, $2, $3) on conflict do nothing`, [p.user_id, p.id, url]);
    }
  }

  /** Members whose single first payment was the monthly plan, less than 48 hours ago (spec section 4). */
  async function qualifiesForSpecialOffer(user: UserRow): Promise<boolean> {
    const paid = (await repo.paymentsOf(user.id)).filter((p) => p.status === 'succeeded' && p.amount_minor > 0);
    return specialOfferSecondsLeft(paid.map((p) => ({ tariff_id: p.tariff_id, created_at: new Date(p.created_at).toISOString() })), now().getTime()) !== null;
  }

  return {
    currencyFor,

    async currencies(country: string | undefined) {
      return { currencies: catalogue.currencies, default: currencyFor(country) };
    },

    async landingPriceList(q: { selectedPlan?: string; currency?: string; promocode?: string }, country: string | undefined) {
      const currency = q.currency ?? currencyFor(country);
      checkCurrency(currency);
      const lists = await repo.priceLists();
      const wanted = q.selectedPlan ? [q.selectedPlan, `landing-${q.selectedPlan}`] : [];
      const priceList = wanted.find((l) => lists.includes(l) && l !== 'special-offer') ?? 'default';
      const prices = await repo.prices();
      let promo: { code: string; percentOff: number } | null = null;
      const plans: TariffPrice[] = [];
      for (const t of await tariffs()) {
        if (t.is_free) continue;
        const p = resolvePrice(prices, t.id, currency, priceList);
        if (!p) continue;
        let amount = p.amountMinor;
        if (q.promocode) {
          const row = await repo.promo(q.promocode);
          if (!promoProblem(row, t.id, now())) {
            promo = { code: row!.code, percentOff: row!.percent_off };
            amount = applyPercentOff(amount, row!.percent_off);
          }
        }
        plans.push(toTariffPrice(t, currency, amount, p.listAmountMinor));
      }
      return { currency, priceList, plans, promo };
    },

    /** The special-offer list is quoted only to a signed-in member who qualifies; anyone else gets the default price. */
    async guestPriceData(
      q: { tariffId?: number; currency?: string; promocode?: string; priceList?: string },
      country: string | undefined,
      user?: UserRow,
    ): Promise<GuestPriceData> {
      if (!q.tariffId) return {};
      const currency = q.currency ?? currencyFor(country);
      const offer = q.priceList === 'special-offer' && q.tariffId === 3 && user && (await qualifiesForSpecialOffer(user));
      const priceList = q.priceList === 'special-offer' ? (offer ? 'special-offer' : 'default') : (q.priceList ?? 'default');
      const r = await quote(q.tariffId, currency, priceList, q.promocode);
      return { tariffId: r.tariff.id, tariffName: r.tariff.name, currency, amount: r.amountMinor, listAmount: r.listAmountMinor, promo: r.promo };
    },

    async planInfo(user: UserRow): Promise<PlanInfo> {
      const payments = await repo.paymentsOf(user.id);
      const names = new Map((await tariffs()).map((t) => [t.id, t.name]));
      const processing = payments.some((p) => p.status === 'pending' && now().getTime() - new Date(p.created_at).getTime() < PROCESSING_WINDOW_MS && p.provider_ref);
      return {
        tariffName: user.tariff_name,
        tariffKey: user.tariff_key,
        expiresAt: iso(user.subscription_expires_at),
        accountStatus: user.account_status,
        paymentStatus: processing ? 'processing' : 'processed',
        moneyBackDays: deps.moneyBackDays,
        payments: payments
          .filter((p) => p.status === 'succeeded' || p.status === 'refunded')
          .map((p) => ({
            id: p.public_id, tariff_id: p.tariff_id, tariff_name: names.get(p.tariff_id) ?? '', amount: p.amount_minor, currency: p.currency,
            status: p.status, provider: p.provider, created_at: iso(p.created_at)!, paid_at: iso(p.paid_at),
          })),
      };
    },

    async createPayment(user: UserRow, body: CreatePaymentBody, ctx: { origin: string }, opts: { flow?: 'redirect' | 'embedded' } = {}): Promise<CreatePaymentResult> {
      const provider = deps.providers[body.provider];
      if (!provider) throw new ValidationError({ provider: ['This payment method is not available.'] });
      let priceList = body.priceList ?? 'default';
      if (priceList === 'special-offer') {
        if (body.tariffId !== 3 || !(await qualifiesForSpecialOffer(user))) {
          throw new ForbiddenError('The special offer is not available for this account.');
        }
      }
      const q = await quote(body.tariffId, body.currency, priceList, body.promocode);
      priceList = q.priceList;
      const returnUrl = safeReturnUrl(body.returnPath ?? '/zg/paymentEvent', ctx.origin, deps.isKnownHost);
      if (!returnUrl) throw new ValidationError({ returnPath: ['The return address must be on this site.'] });
      const idempotencyKey = body.idempotencyKey ?? randomUUID();
      const { payment } = await repo.insertPayment({
        public_id: `pay_${randomUUID().replace(/-/g, '')}`,
        user_id: user.id,
        tariff_id: q.tariff.id,
        currency: body.currency,
        amount_minor: q.amountMinor,
        price_list: priceList,
        promo_code: q.promo?.code ?? null,
        provider: provider.id,
        idempotency_key: idempotencyKey,
        return_url: returnUrl.href,
      });
      if (payment.provider !== provider.id || payment.tariff_id !== q.tariff.id || payment.currency !== body.currency) {
        throw new ValidationError({ idempotencyKey: ['This idempotency key was used for another checkout.'] });
      }
      if (payment.status !== 'pending') throw new ValidationError({ idempotencyKey: ['This checkout is already complete.'] });
      // The provider call carries our key too: concurrent retries reach the provider as one payment.
      const created = await provider.create({
        merchantRef: payment.public_id,
        amountMinor: payment.amount_minor,
        currency: payment.currency,
        description: `${q.tariff.name}`,
        customerEmail: user.email,
        idempotencyKey: `${payment.public_id}`,
        returnUrl: payment.return_url!,
        notifyUrl: `${ctx.origin}/api/billing/webhooks/${provider.id}`,
        method: body.type,
        flow: opts.flow ?? 'redirect',
      });
      await repo.setProviderRef(payment.id, created.providerRef);
      return { paymentId: payment.public_id, provider: provider.id, amount: payment.amount_minor, currency: payment.currency, ...stripUndefined(created) };
    },

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
      if (fault === 'kill-after-capture' && state.status === 'succeeded') process.kill(process.pid, 'SIGKILL');
      try {
        await reconcile(payment, state);
      } catch (err) {
        if (err instanceof WebhookRejected) throw new BadRequestError(`Webhook rejected: ${err.message}.`);
        throw err;
      }
      return provider.ack;
    },

    reconcile,

    /** Operator refund: inside the money-back window unless forced. Refunds at the provider when it can. */
    async refund(publicId: string, opts: { force?: boolean } = {}) {
      const payment = await repo.paymentByPublicId(publicId);
      if (!payment) throw new NotFoundError('No such payment.');
      if (payment.status !== 'succeeded') throw new ValidationError({ payment: [`The payment is ${payment.status}.`] });
      if (!opts.force && !isWithinMoneyBack(new Date(payment.paid_at ?? payment.created_at), now(), deps.moneyBackDays)) {
        throw new ValidationError({ payment: [`The ${deps.moneyBackDays}-day money-back window has passed (use --force).`] });
      }
      await reconcile(payment, { providerRef: payment.provider_ref ?? '', status: 'refunded' });
      return (await repo.paymentById(payment.id))!;
    },

    /** Operator grant (support, tests): applies a tariff as an internal zero-amount payment. */
    async grant(userId: number, tariffKey: string) {
      const tariff = (await tariffs()).find((t) => t.key === tariffKey && !t.is_free);
      if (!tariff) throw new ValidationError({ tariff: ['Unknown paid tariff.'] });
      const { payment } = await repo.insertPayment({
        public_id: `grant_${randomUUID().replace(/-/g, '')}`, user_id: userId, tariff_id: tariff.id, currency: catalogue.currencies[0]!, amount_minor: 0,
        price_list: 'grant', promo_code: null, provider: 'grant', idempotency_key: randomUUID(), return_url: null,
      });
      await reconcile(payment, { providerRef: payment.public_id, status: 'succeeded' });
      return (await repo.paymentById(payment.id))!;
    },

    /** The scheduled job: lapsed subscriptions return to the free plan. */
    async expireSubscriptions(): Promise<number[]> {
      const rows = await db.query<{ id: number }>(
        `update users set tariff_key = 'free-plan', tariff_name = $1, subscription_expires_at = null, updated_at = now()
         where tariff_key <> 'free-plan' and subscription_expires_at is not null and subscription_expires_at <= $2 returning id`,
        [await freeName(), now()],
      );
      if (deps.onSubscriptionChanged) for (const r of rows) await deps.onSubscriptionChanged(r.id);
      return rows.map((r) => r.id);
    },

    async recordAffiliateSession(referralId: string, url: string, userId: number | null) {
      await db.query('insert into affiliate_sessions (referral_id, url, user_id) values ($1, $2, $3)', [referralId, url.slice(0, 2048), userId]);
    },
  };
}
export type BillingService = ReturnType<typeof billingService>;

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
