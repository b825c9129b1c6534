import { randomUUID } from 'node:crypto';
import {
  type CreatePaymentBody,
  type CreatePaymentResult,
  type PlanInfo,
  SPECIAL_OFFER_SELLS_TARIFF_ID,
} from '@warren/contract';
import { type Queryable, retryWhileUnavailable } from '../../db/client.js';
import { ForbiddenError, ValidationError } from '../../lib/errors.js';
import type { PaymentProvider } from '../../payments/provider.js';
import type { UserRow } from '../users/index.js';
import type { CookieJar, PricesService } from './prices.js';
import { type PaymentRow, billingRepository } from './repository.js';
import { safeReturnUrl } from './return-url.js';

/** The buyer's side of a checkout: where the request came from and what the browser holds. */
export interface CheckoutContext {
  origin: string;
  cookies?: CookieJar;
  language?: string;
  /** The brand's default for the auto-renew choice, when the body does not make one. */
  autoRenewDefault?: boolean;
}

export interface CheckoutDeps {
  db: Queryable;
  prices: PricesService;
  providers: Partial<Record<string, PaymentProvider>>;
  isKnownHost: (host: string) => boolean;
  moneyBackDays: number;
  now: () => Date;
}

const PROCESSING_WINDOW_MS = 30 * 60_000;
const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** Checkout: a member starts a payment with a provider, and sees their plan and what came of their payments. */
export function checkoutService(deps: CheckoutDeps) {
  const { prices, now } = deps;
  const repo = billingRepository(deps.db);

  return {
    async planInfo(user: UserRow): Promise<PlanInfo> {
      const payments = await repo.paymentsOf(user.id);
      const names = new Map((await prices.tariffs()).map((t) => [t.id, t.name]));
      const summary = (p: PaymentRow) => ({
        id: p.public_id,
        tariff_id: p.tariff_id,
        tariff_name: names.get(p.tariff_id) ?? '',
        amount: p.amount_minor,
        currency: p.currency,
        status: p.status,
        provider: p.provider,
        created_at: iso(p.created_at)!,
        paid_at: iso(p.paid_at),
      });
      // The latest checkout decides: an older attempt left open at the provider (Back, closed tab)
      // must not keep a member "processing" once a later one has an outcome.
      const last = [...payments].reverse().find((p) => p.provider !== 'grant');
      const processing =
        !!last &&
        last.status === 'pending' &&
        !!last.provider_ref &&
        now().getTime() - new Date(last.created_at).getTime() < PROCESSING_WINDOW_MS;
      return {
        tariffName: user.tariff_name,
        tariffKey: user.tariff_key,
        expiresAt: iso(user.subscription_expires_at),
        accountStatus: user.account_status,
        paymentStatus: processing ? 'processing' : 'processed',
        moneyBackDays: deps.moneyBackDays,
        payments: payments.filter((p) => p.status === 'succeeded' || p.status === 'refunded').map(summary),
        lastPayment: last ? summary(last) : null,
      };
    },

    async createPayment(
      user: UserRow,
      body: CreatePaymentBody,
      ctx: CheckoutContext,
      opts: { flow?: 'redirect' | 'embedded' } = {},
    ): Promise<CreatePaymentResult> {
      const provider = Object.hasOwn(deps.providers, body.provider) ? deps.providers[body.provider] : undefined;
      if (!provider) throw new ValidationError({ provider: ['This payment method is not available.'] });
      let priceList = body.priceList ?? 'default';
      if (priceList === 'special-offer') {
        if (body.tariffId !== SPECIAL_OFFER_SELLS_TARIFF_ID || !(await prices.qualifiesForSpecialOffer(user))) {
          throw new ForbiddenError('The special offer is not available for this account.');
        }
      }
      // Finding 8: a discounted list sells only inside the window its page started for this browser.
      if (!prices.discountOpen(priceList, ctx.cookies)) {
        throw new ForbiddenError(
          'This discount is not available: it lasts one day from your first visit to its page. Choose a plan at the regular price.',
        );
      }
      const q = await prices.quote(body.tariffId, body.currency, priceList, body.promocode);
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
      if (payment.status !== 'pending')
        throw new ValidationError({ idempotencyKey: ['This checkout is already complete.'] });
      // The auto-renew choice: kept on the payment, applied with the saved method once it succeeds (renewals.ts).
      const autoRenew = body.autoRenew ?? ctx.autoRenewDefault ?? true;
      await repo.setAutoRenewChoice(payment.id, autoRenew);
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
        // A page we host (the sandbox) opens on the buyer's own brand host, in the buyer's language.
        pageOrigin: ctx.origin,
        language: body.language ?? ctx.language ?? user.language,
        // Keep the method for renewals only when the buyer lets the plan renew (and it can: not lifetime or a trial).
        saveMethod: autoRenew && !q.tariff.is_lifetime && !q.tariff.is_trial,
      });
      // The provider holds a payment now and only this request knows its reference: the write outlasts a
      // database restart of a few seconds. Past that the buyer gets a 503 and retries with the same
      // idempotency key, and the provider (idempotent on our payment's id) answers the same reference.
      await retryWhileUnavailable(() => repo.setProviderRef(payment.id, created.providerRef));
      return {
        paymentId: payment.public_id,
        provider: provider.id,
        amount: payment.amount_minor,
        currency: payment.currency,
        ...stripUndefined(created),
      };
    },
  };
}
export type CheckoutService = ReturnType<typeof checkoutService>;

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
