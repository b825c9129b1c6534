import { randomUUID } from 'node:crypto';
import type { SwitchOptions, SwitchPlanBody, SwitchPlanResult, SwitchQuote as WireQuote } from '@warren/contract';
import type { Database } from '../../db/client.js';
import { ConflictError, ValidationError } from '../../lib/errors.js';
import type { PaymentProvider } from '../../payments/provider.js';
import { type UserRow, userPlansRepository } from '../users/index.js';
import { DAY_MS, type SwitchQuote, type SwitchTariff, quoteSwitch } from './plan-switch.js';
import type { PricesService } from './prices.js';
import type { RenewalsService } from './renewals.js';
import { renewalsRepository } from './renewals-repository.js';
import { type TariffRow, billingRepository, lockSubscription } from './repository.js';
import { safeReturnUrl } from './return-url.js';

/**
 * Switching plans from /subscription (issue 23). The arithmetic is plan-switch.ts; here the
 * member's state is read under the subscription's lock (a renewal charge or a refund of the same
 * subscription waits, or finished first), a longer period becomes a checkout through the real
 * provider path (a payment of kind 'switch' that reconcile() applies once, and only while the plan
 * it was quoted against still holds), and a shorter one is scheduled on the renewal.
 *
 * One switch per plan period: the payment's idempotency key names the paid-until it was quoted
 * against, the target and the quote's hour, so parallel requests and a double click find one
 * payment; a later quote for the same period (the member came back a day later) abandons the older
 * open checkout, and if both were somehow paid, the second finds its basis gone and is refunded.
 */
export interface SwitchingDeps {
  db: Database;
  prices: PricesService;
  providers: Partial<Record<string, PaymentProvider>>;
  renewals: RenewalsService;
  isKnownHost: (host: string) => boolean;
  now: () => Date;
}

/** A quote is honoured for this long; a checkout left open longer is replaced by a fresh quote. */
export const SWITCH_QUOTE_TTL_MS = 60 * 60_000;
const ONE_TIME_LISTS = /^(discount-\d+|special-offer)$/;

const asSwitchTariff = (t: TariffRow): SwitchTariff => ({
  id: t.id,
  key: t.key,
  periodDays: t.period_days,
  isFree: t.is_free,
  isLifetime: t.is_lifetime,
  isTrial: t.is_trial,
});

export function toWire(q: SwitchQuote): WireQuote {
  if (q.kind === 'now')
    return {
      kind: 'now',
      currency: q.currency,
      priceMinor: q.priceMinor,
      creditMinor: q.creditMinor,
      chargeMinor: q.chargeMinor,
      carriedDays: Math.floor(q.carriedMs / DAY_MS),
      periodStart: q.periodStart.toISOString(),
      periodEnd: q.periodEnd.toISOString(),
    };
  if (q.kind === 'scheduled')
    return {
      kind: 'scheduled',
      currency: q.currency,
      effectiveAt: q.effectiveAt.toISOString(),
      nextChargeMinor: q.nextChargeMinor,
    };
  return q;
}

export function switchingService(deps: SwitchingDeps) {
  const { db, prices, now } = deps;
  const payments = billingRepository(db);
  const renewalRows = renewalsRepository(db);
  /** The providers a switch can be paid with: those configured here. */
  const available = () => Object.keys(deps.providers).filter((id) => !!deps.providers[id]);

  /** Everything a quote needs, read now (under the lock when a switch starts). */
  async function context(userId: number) {
    const user = await userPlansRepository(db).plan(userId);
    const tariffs = await prices.tariffs();
    const current = tariffs.find((t) => t.key === user?.tariff_key);
    const renewal = await renewalRows.get(userId);
    const info = await deps.renewals.infoOf(userId);
    const currency = (await payments.lastPaidCurrency(userId)) ?? renewal?.currency ?? null;
    const priceList = renewal?.price_list ?? 'default';
    const at = now();
    const expiresAt = user?.subscription_expires_at ? new Date(user.subscription_expires_at) : null;
    const periods = (await payments.livePeriods(userId, at)).map((p) => ({
      valueMinor: p.value_minor,
      currency: p.currency,
      start: new Date(p.period_start),
      end: new Date(p.period_end),
    }));
    return { user, tariffs, current, renewal, info, currency, priceList, at, expiresAt, periods };
  }
  type Ctx = Awaited<ReturnType<typeof context>>;

  async function priceOf(tariffId: number, currency: string, priceList: string) {
    const list = ONE_TIME_LISTS.test(priceList) ? 'default' : priceList;
    for (const l of [list, 'default']) {
      try {
        const q = await prices.quote(tariffId, currency, l, undefined);
        return { amountMinor: q.amountMinor, priceList: q.priceList };
      } catch {
        /* not sold on this list: the default list */
      }
    }
    return undefined;
  }

  async function quoteFor(c: Ctx, target: TariffRow): Promise<{ quote: SwitchQuote; priceList: string }> {
    const refused = (reason: Extract<SwitchQuote, { kind: 'refused' }>['reason']) => ({
      quote: { kind: 'refused' as const, reason },
      priceList: c.priceList,
    });
    if (!c.current || !c.user) return refused('not-active');
    if (!c.currency) {
      // Never paid in any currency: a granted plan; priced in the renewal's or the catalogue's first currency.
      c.currency = prices.currencyFor(undefined);
    }
    const price = await priceOf(target.id, c.currency!, c.priceList);
    if (!price) return refused('not-switchable');
    const quote = quoteSwitch({
      now: c.at,
      current: asSwitchTariff(c.current),
      target: asSwitchTariff(target),
      expiresAt: c.expiresAt,
      targetPriceMinor: price.amountMinor,
      currency: c.currency!,
      periods: c.periods,
      renews: c.info.autoRenew,
    });
    return { quote, priceList: price.priceList };
  }

  async function options(user: Pick<UserRow, 'id'>): Promise<SwitchOptions> {
    const c = await context(user.id);
    const list = [];
    for (const t of c.tariffs) {
      if (t.is_free || t.is_lifetime || t.is_trial || !t.period_days || t.key === c.user?.tariff_key) continue;
      const { quote } = await quoteFor(c, t);
      list.push({
        tariffId: t.id,
        tariffKey: t.key,
        tariffName: t.name,
        periodDays: t.period_days,
        quote: toWire(quote),
      });
    }
    list.sort((a, b) => a.periodDays - b.periodDays);
    return {
      currentTariffKey: c.user?.tariff_key ?? 'free-plan',
      currency: c.currency,
      options: list,
      providers: available() as SwitchOptions['providers'],
    };
  }

  const REFUSAL_TEXT: Record<string, string> = {
    'not-active': 'There is no active paid plan to switch. Choose a plan on the plans page.',
    lifetime: 'A lifetime plan has nothing to switch.',
    'same-plan': 'This is the period you already have.',
    'not-switchable': 'This plan cannot be switched to from the subscription page.',
    'current-not-switchable': 'Your current plan cannot be switched: choose a plan on the plans page.',
    'no-renewal':
      'Your plan does not renew automatically, so there is nothing to change at its end: choose the shorter plan when you buy next.',
    'credit-covers': 'The unused part of your plan covers the new price: please write to support to switch.',
  };

  async function start(
    user: Pick<UserRow, 'id' | 'email' | 'language'>,
    body: SwitchPlanBody,
    ctx: { origin: string; language?: string },
  ): Promise<SwitchPlanResult> {
    const target = await prices.tariffById(body.tariffId);
    if (!target) throw new ValidationError({ tariffId: ['This plan does not exist.'] });
    // Checked before the lock: a bad provider changes nothing.
    const provider =
      body.provider && Object.hasOwn(deps.providers, body.provider) ? deps.providers[body.provider] : undefined;
    const returnUrl = safeReturnUrl(body.returnPath ?? '/subscription?switch=done', ctx.origin, deps.isKnownHost);
    if (!returnUrl) throw new ValidationError({ returnPath: ['The return address must be on this site.'] });

    const prepared = await lockSubscription(db, user.id, async () => {
      const c = await context(user.id);
      const { quote, priceList } = await quoteFor(c, target);
      if (quote.kind === 'refused')
        throw new ConflictError(REFUSAL_TEXT[quote.reason] ?? 'This switch is not possible.');
      if (quote.kind === 'scheduled') {
        await renewalRows.setScheduled(user.id, target.id);
        return { kind: 'scheduled' as const, quote };
      }
      if (!provider || !available().includes(provider.id))
        throw new ValidationError({ provider: ['This payment method is not available.'] });
      if (body.expectedChargeMinor !== undefined && body.expectedChargeMinor !== quote.chargeMinor)
        throw new ConflictError('The price of this switch changed since it was shown. Please look at it again.');
      // A renewal charge still open at its provider: its outcome decides the period first.
      if (await payments.renewalPending(user.id))
        throw new ConflictError('A renewal payment of your plan is still being processed. Please try again later.');
      const basis = c.expiresAt!;
      const bucket = Math.floor(c.at.getTime() / SWITCH_QUOTE_TTL_MS);
      const key = `switch-${basis.getTime()}-${target.id}-${quote.currency}-${bucket}`;
      const { payment, created } = await payments.insertSwitchPayment({
        publicId: `pay_${randomUUID().replace(/-/g, '')}`,
        userId: user.id,
        tariffId: target.id,
        currency: quote.currency,
        amountMinor: quote.chargeMinor,
        listAmountMinor: quote.priceMinor,
        creditMinor: quote.creditMinor,
        priceList,
        provider: provider.id,
        idempotencyKey: key,
        returnUrl: returnUrl.href,
        fromTariffId: c.current!.id,
        basisExpires: basis,
        carriedMs: quote.carriedMs,
        autoRenew: c.renewal ? c.renewal.auto_renew : true,
      });
      if (payment.provider !== provider.id)
        throw new ConflictError('This switch is already open with another payment method. Please finish it there.');
      if (payment.status !== 'pending') throw new ConflictError('This switch is already paid.');
      if (created) {
        // Older open checkouts of a switch: their quotes are stale now; only this one is offered.
        for (const old of await payments.openSwitches(user.id))
          if (old.id !== payment.id) await payments.abandonSwitch(old.id, 'Replaced by a newer quote.');
      }
      // The quote of the payment (a reused one keeps the amount it was made with).
      const stored: SwitchQuote = created
        ? quote
        : {
            ...quote,
            chargeMinor: payment.amount_minor,
            creditMinor: Number(payment.credit_minor ?? 0),
            priceMinor: Number(payment.list_amount_minor ?? payment.amount_minor),
            periodStart: new Date(payment.created_at),
            periodEnd: new Date(
              new Date(payment.created_at).getTime() +
                target.period_days! * DAY_MS +
                Number(payment.switch_carried_ms ?? 0),
            ),
          };
      return { kind: 'checkout' as const, quote: stored, payment, tariffName: target.name };
    });

    if (prepared.kind === 'scheduled')
      return { kind: 'scheduled', quote: toWire(prepared.quote), subscription: await deps.renewals.infoOf(user.id) };

    const payment = prepared.payment;
    // The provider holds one payment per our payment id (its idempotency key): a retried request gets the same page.
    const created = await provider!.create({
      merchantRef: payment.public_id,
      amountMinor: payment.amount_minor,
      currency: payment.currency,
      description: `${prepared.tariffName} (switch)`,
      customerEmail: user.email,
      idempotencyKey: payment.public_id,
      returnUrl: payment.return_url!,
      notifyUrl: `${ctx.origin}/api/billing/webhooks/${provider!.id}`,
      method: body.type,
      flow: 'redirect',
      pageOrigin: ctx.origin,
      language: body.language ?? ctx.language ?? user.language,
      saveMethod: payment.auto_renew !== false,
    });
    await payments.setProviderRef(payment.id, created.providerRef);
    const result = Object.fromEntries(Object.entries(created).filter(([, v]) => v !== undefined));
    return {
      kind: 'checkout',
      quote: toWire(prepared.quote),
      payment: {
        paymentId: payment.public_id,
        provider: provider!.id,
        amount: payment.amount_minor,
        currency: payment.currency,
        ...result,
      },
    };
  }

  /** Drops a scheduled move to a shorter period: the plan renews as it is. */
  async function cancelScheduled(user: Pick<UserRow, 'id'>) {
    await lockSubscription(db, user.id, async () => {
      const r = await renewalRows.get(user.id);
      if (!r?.scheduled_tariff_id) throw new ConflictError('No plan change is scheduled.');
      await renewalRows.setScheduled(user.id, null);
    });
    return deps.renewals.infoOf(user.id);
  }

  return { options, start, cancelScheduled };
}
export type SwitchingService = ReturnType<typeof switchingService>;
