import { randomUUID } from 'node:crypto';
import type { Language, SubscriptionInfo } from '@warren/contract';
import type { Database } from '../../db/client.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import type { Mailer } from '../../mail/mailer.js';
import { planName } from '../../mail/plan-names.js';
import {
  type MailKind,
  NO_MORE_RETRIES,
  notYouLinks,
  renderMail,
  billedToLabel,
  switchAmountLabel,
  timeLabel,
} from '../../mail/templates.js';
import type { PaymentProvider } from '../../payments/provider.js';
import { type UserRow, userPlansRepository } from '../users/index.js';
import type { PricesService } from './prices.js';
import type { ReconciliationService } from './reconcile.js';
import { type MemberContact, type RenewalRow, renewalsRepository } from './renewals-repository.js';
import { type PaymentRow, type TariffRow, billingRepository, lockSubscription } from './repository.js';

/**
 * Renewals (issue 13). A paid plan bought with a provider that can charge again (Stripe with a
 * saved payment method, Payssion v2 mandates, the sandbox's saved test card) renews `leadDays`
 * before its paid-until date, at the regular price of the customer's price list, through the
 * same path as a first payment: the charge's state is read from the provider and applied by
 * reconcile(), which extends the plan exactly once. Every attempt is a payment whose
 * idempotency key names the period and the attempt, so a pass run twice, or by two instances at
 * once, charges once. A refused charge is retried `retryDays` after the renewal was due
 * (RENEWAL_RETRY_DAYS, 1 and 2 days: config refuses a retry that would fall at or after the plan's
 * end) while the plan lasts; a method the provider calls unusable is never tried again.
 * Mails (reminder, receipt, failure, plan ended) are claimed once per member, kind and period
 * in billing_notices before they are sent; one whose sending failed is sent again by the next pass.
 */
export interface RenewalsDeps {
  db: Database;
  prices: PricesService;
  providers: Partial<Record<string, PaymentProvider>>;
  reconciliation: ReconciliationService;
  mailer: Mailer;
  brandName: (brandId: string) => string;
  /** The origin mail links use for a brand (PUBLIC_URL, else the brand's first host). */
  originOf: (brandId: string) => string;
  /**
   * An origin the server may link to (brands/origins.ts isTrusted). The receipt links to the
   * host the customer paid on when it is one: the host their session lives on, as the
   * verification mail's link is (issue 23: the receipt pointed at the brand's first host, and
   * following it landed the customer signed out). Without it, every link is the brand's origin.
   */
  isTrustedOrigin?: (url: URL) => boolean;
  /** The brand's help centre: the refund notice's "contact support" link. */
  supportUrl: (brandId: string) => string;
  /** The brand's default for the checkout's auto-renew choice. */
  autoRenewDefault: (brandId: string) => boolean;
  leadDays: number;
  retryDays?: readonly number[];
  reminderDays?: { yearly: number; other: number };
  /** Where providers notify us about renewal charges. */
  notifyUrl: (providerId: string) => string;
  /** The billing address a payment's receipt shows (receipts.ts: the receipt's own copy). */
  billedTo?: (
    userId: number,
    publicId: string,
  ) => Promise<{ name: string; lines: string[]; country: string; vatNumber: string } | undefined>;
  /** The receipt PDF of a payment (receipts.ts): the receipt mail carries the same file as the dashboard. */
  receiptPdf?: (userId: number, publicId: string, language: Language) => Promise<{ pdf: Buffer; filename: string }>;
  /** Each renewal charge tried (not 'not-due'), by provider and outcome (metrics). */
  onRenewal?: (provider: string, outcome: Exclude<RenewOutcome, 'not-due'>) => void;
  /** A renewal charge the provider refused (a payment newly failed; metrics). */
  onPaymentOutcome?: (payment: PaymentRow, outcome: 'failed') => void;
  now: () => Date;
}

const DAY_MS = 86_400_000;
/**
 * An old card's detach the provider did not make (issue 23, the card change) is tried again by the
 * billing pass after these waits (15 min, 1 h, 6 h, 1 day, 1 day); after the last, the row stays as
 * the operator's note (payment_method_detaches with no next try).
 */
export const DETACH_RETRY_MS = [15 * 60_000, 3_600_000, 6 * 3_600_000, DAY_MS, DAY_MS] as const;
const DETACH_BATCH = 50;
const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 500);
/** One-time offers never renew at their price: a renewal uses the regular list. */
const ONE_TIME_LISTS = /^(discount-\d+|special-offer)$/;
const LANGS: readonly Language[] = ['en', 'ru', 'zh'];
const languageOf = (l: string): Language => (LANGS.includes(l as Language) ? (l as Language) : 'en');
const iso = (d: Date | string | null | undefined) => (d === null || d === undefined ? null : new Date(d).toISOString());
const day = (d: Date | string) => new Date(d).toISOString().slice(0, 10);
const formatAmount = (minor: number, currency: string) => `${(minor / 100).toFixed(2)} ${currency}`;

export type RenewOutcome = 'renewed' | 'pending' | 'failed' | 'not-due';
export interface PassResult {
  asOf: string;
  reminders: number;
  renewals: { userId: number; outcome: RenewOutcome; payment?: string; error?: string }[];
  ended: number[];
  resent: number;
}

export function renewalsService(deps: RenewalsDeps) {
  const { db, prices, now } = deps;
  const repo = renewalsRepository(db);
  const retryDays = deps.retryDays ?? [1, 2];
  const reminderDays = deps.reminderDays ?? { yearly: 7, other: 3 };

  const canCharge = (providerId: string | null | undefined) => {
    const p = providerId && Object.hasOwn(deps.providers, providerId) ? deps.providers[providerId] : undefined;
    return p?.chargeSaved && p.savedMethodOf ? p : undefined;
  };
  /** A provider with its own page to change the saved method without paying (issue 23). */
  const methodUpdater = (providerId: string | null | undefined) => {
    const p = canCharge(providerId);
    return p?.startMethodUpdate && p.methodOfUpdate ? p : undefined;
  };
  const renews = (t: TariffRow | undefined) => !!t && !t.is_free && !t.is_lifetime && !t.is_trial && !!t.period_days;

  /** What the next renewal buys: a scheduled move to a shorter period (issue 23), else the plan that renews. */
  const renewTariffOf = (r: RenewalRow) => r.scheduled_tariff_id ?? r.tariff_id;

  async function nextCharge(r: RenewalRow): Promise<{ amountMinor: number; currency: string } | null> {
    const tariffId = renewTariffOf(r);
    if (!tariffId || !r.currency) return null;
    for (const list of [r.price_list ?? 'default', 'default']) {
      try {
        const q = await prices.quote(tariffId, r.currency, list, undefined);
        return { amountMinor: q.amountMinor, currency: r.currency };
      } catch {
        /* this list no longer sells the plan: the default list does */
      }
    }
    return null;
  }

  /** Sends a claimed mail; a failure leaves it unsent for the next pass. */
  async function deliver(
    userId: number,
    kind: MailKind,
    periodKey: string,
    payload: Record<string, string>,
  ): Promise<boolean> {
    const to = payload.to!;
    const language = languageOf(payload.language ?? 'en');
    // The refund notice is a security notice too: it ends with what to do if the owner did not ask for it.
    const notYou = payload.notYouReset
      ? { reset: payload.notYouReset, profile: payload.notYouProfile ?? '', support: payload.notYouSupport ?? '' }
      : undefined;
    const mail = renderMail(kind, {
      language,
      productName: deps.brandName(payload.brand ?? ''),
      link: payload.link,
      vars: payload,
      notYou,
    });
    try {
      // A receipt mail carries the receipt itself (issued here if the dashboard has not yet: one number either way).
      const receipt =
        kind === 'receipt' && deps.receiptPdf && payload.payment
          ? await deps.receiptPdf(userId, payload.payment, language).catch(() => null)
          : null;
      const attachments = receipt
        ? [{ filename: receipt.filename, content: receipt.pdf, contentType: 'application/pdf' }]
        : undefined;
      await deps.mailer.send({ to, ...mail, ...(attachments ? { attachments } : {}) });
      await repo.noticeSent(userId, kind, periodKey);
      return true;
    } catch {
      await repo.noticeFailed(userId, kind, periodKey);
      return false;
    }
  }

  /** A mail once per member, kind and period. */
  /** The origin of the page a payment was made from (its return address), when the server may link there; null otherwise (a renewal has none). */
  function paidOn(p: PaymentRow): string | null {
    if (!p.return_url || !deps.isTrustedOrigin) return null;
    try {
      const url = new URL(p.return_url);
      return deps.isTrustedOrigin(url) ? url.origin : null;
    } catch {
      return null;
    }
  }

  async function notify(
    m: { user_id: number; email: string; language: string; brand: string },
    kind: MailKind,
    periodKey: string,
    vars: Record<string, string>,
    origin?: string,
  ) {
    const payload = {
      ...vars,
      to: m.email,
      language: m.language,
      brand: m.brand,
      link: `${origin ?? deps.originOf(m.brand)}/subscription`,
    };
    if (!(await repo.claimNotice(m.user_id, kind, periodKey, payload))) return false;
    await deliver(m.user_id, kind, periodKey, payload);
    return true;
  }

  async function methodLabel(r: RenewalRow) {
    return r.method_label ?? r.provider ?? '';
  }

  type Member = Pick<UserRow, 'id' | 'tariff_key' | 'tariff_name' | 'subscription_expires_at'>;
  async function memberOf(userId: number): Promise<Member> {
    const u = await userPlansRepository(db).plan(userId);
    if (!u) throw new NotFoundError('No such user.');
    return {
      id: userId,
      tariff_key: u.tariff_key,
      tariff_name: u.tariff_name,
      subscription_expires_at: u.subscription_expires_at,
    };
  }

  async function info(user: Member): Promise<SubscriptionInfo> {
    const tariffs = await prices.tariffs();
    const tariff = tariffs.find((t) => t.key === user.tariff_key);
    const r = await repo.get(user.id);
    const nowDate = now();
    const lifetime = !!tariff?.is_lifetime;
    const expires = user.subscription_expires_at ? new Date(user.subscription_expires_at) : null;
    const paid = user.tariff_key !== 'free-plan' && (lifetime || (expires !== null && expires > nowDate));
    const status: SubscriptionInfo['status'] = paid
      ? 'active'
      : user.tariff_key !== 'free-plan' || r || (await repo.everPaid(user.id))
        ? 'expired'
        : 'free';
    const renewTariff = tariffs.find((t) => t.id === r?.tariff_id);
    const canAutoRenew =
      paid && !lifetime && !!r && !r.unusable && !!r.method_ref && !!canCharge(r.provider) && renews(renewTariff);
    const autoRenew = canAutoRenew && !!r?.auto_renew;
    const renewsAt = autoRenew && expires ? new Date(expires.getTime() - deps.leadDays * DAY_MS) : null;
    const failing = r && r.failed_attempts > 0 && iso(r.period_end) === iso(expires) ? r.last_error : null;
    const scheduled =
      autoRenew && r?.scheduled_tariff_id && r.scheduled_tariff_id !== tariff?.id
        ? tariffs.find((t) => t.id === r.scheduled_tariff_id)
        : undefined;
    return {
      plan: { tariffKey: user.tariff_key, tariffName: user.tariff_name, lifetime },
      status,
      paidUntil: lifetime ? null : iso(expires),
      autoRenew,
      canAutoRenew,
      renewsAt: renewsAt ? iso(renewsAt < nowDate ? nowDate : renewsAt) : null,
      nextCharge: autoRenew && r ? await nextCharge(r) : null,
      paymentMethod:
        r?.method_ref && !r.unusable && r.provider ? { provider: r.provider, label: await methodLabel(r) } : null,
      lastRenewalError: failing ?? null,
      canUpdateMethod: !!r?.method_ref && !!r.provider && !!methodUpdater(r.provider),
      scheduledChange:
        scheduled && expires
          ? {
              tariffId: scheduled.id,
              tariffKey: scheduled.key,
              tariffName: scheduled.name,
              effectiveAt: iso(expires)!,
              nextCharge: r ? await nextCharge(r) : null,
            }
          : null,
    };
  }

  /**
   * After every applied payment (reconcile's hook): a purchase through a provider that can charge
   * again saves its method and the buyer's choice; any payment (renewal, grant) moves the next
   * renewal to the new paid-until.
   */
  async function afterPayment(p: PaymentRow): Promise<void> {
    const member = await userPlansRepository(db).plan(p.user_id);
    if (member?.deleted_at) {
      // A checkout paid after its account was deleted: the method it saved is forgotten, not kept to renew.
      const provider = canCharge(p.provider);
      const saved = provider && p.provider_ref ? await provider.savedMethodOf!(p.provider_ref, p.user_id) : null;
      if (saved && provider?.forgetMethod) await provider.forgetMethod(saved);
      return;
    }
    const tariff = await prices.tariffById(p.tariff_id);
    if (p.kind !== 'renewal' && p.provider !== 'grant') {
      const provider = canCharge(p.provider);
      const user = await userPlansRepository(db).plan(p.user_id);
      if (provider && renews(tariff) && user && p.provider_ref) {
        const saved = await provider.savedMethodOf!(p.provider_ref, p.user_id);
        const choice = typeof p.auto_renew === 'boolean' ? p.auto_renew : deps.autoRenewDefault(user.brand);
        await repo.saveMethod(p.user_id, {
          autoRenew: choice && !!saved,
          provider: saved ? provider.id : null,
          customerRef: saved?.customerRef ?? null,
          methodRef: saved?.methodRef ?? null,
          label: saved?.label ?? null,
          tariffId: p.tariff_id,
          priceList: ONE_TIME_LISTS.test(p.price_list) ? 'default' : p.price_list,
          currency: p.currency,
        });
      } else if (tariff?.is_lifetime) {
        // A lifetime plan never renews.
        await repo.setAutoRenew(p.user_id, false);
      }
      // A switch (issue 23): the new plan is what renews, with whichever method renews it; a scheduled change goes.
      if (p.kind === 'switch' && renews(tariff))
        await repo.renewAs(p.user_id, p.tariff_id, ONE_TIME_LISTS.test(p.price_list) ? 'default' : p.price_list);
    } else if (p.kind === 'renewal') {
      // The renewal that took a scheduled move to a shorter period: that plan renews from now on.
      const r = await repo.get(p.user_id);
      if (r?.scheduled_tariff_id && r.scheduled_tariff_id === p.tariff_id)
        await repo.renewAs(p.user_id, p.tariff_id, null);
    }
    await repo.schedule(p.user_id, deps.leadDays);
  }

  async function afterRefund(p: PaymentRow): Promise<void> {
    await repo.setAutoRenew(p.user_id, false);
    // A switch's money-back undoes it (plan-switch.ts): the plan switched from is what renews again.
    if (p.kind === 'switch' && p.applied && p.switch_from_tariff_id)
      await repo.renewAs(
        p.user_id,
        Number(p.switch_from_tariff_id),
        ONE_TIME_LISTS.test(p.price_list) ? 'default' : p.price_list,
      );
  }

  async function setAutoRenew(user: Member, enabled: boolean): Promise<SubscriptionInfo> {
    const current = await info(user);
    if (enabled && !current.canAutoRenew) {
      if (current.plan.lifetime) throw new ConflictError('A lifetime plan never renews: there is nothing to turn on.');
      if (current.status !== 'active') throw new ConflictError('There is no active plan to renew. Buy a plan first.');
      throw new ConflictError(
        'This plan cannot renew automatically: it was paid with a method that cannot be charged again. Pay by card at your next purchase to turn auto-renew on.',
      );
    }
    await repo.setAutoRenew(user.id, enabled);
    return info(user);
  }

  /**
   * Change the card (issue 23): opens the provider's own page to save a new method for the renewals,
   * with nothing charged. Providers without such a page (Payssion, Cardlink) answer 409, which the
   * page says beforehand (canUpdateMethod).
   */
  async function startMethodUpdate(
    user: Member & { email: string; language: string },
    ctx: { origin: string; returnUrl: string; language?: string },
  ): Promise<{ redirectUrl: string }> {
    const r = await repo.get(user.id);
    if (!r?.method_ref || !r.provider)
      throw new ConflictError('There is no saved payment method to change. It is saved when you pay by card.');
    const provider = methodUpdater(r.provider);
    if (!provider)
      throw new ConflictError(
        'This payment method cannot be changed without a new purchase. Pay by card at your next purchase to save a new one.',
      );
    const reference = `mu_${randomUUID().replace(/-/g, '')}`;
    const opened = await provider.startMethodUpdate!({
      reference,
      customerRef: r.customer_ref ?? undefined,
      customerEmail: user.email,
      currency: r.currency ?? 'USD',
      returnUrl: ctx.returnUrl,
      pageOrigin: ctx.origin,
      language: ctx.language ?? user.language,
    });
    await repo.openMethodUpdate(user.id, opened.providerRef);
    return { redirectUrl: opened.redirectUrl };
  }

  /** Back from the provider's page: the saved method is the new one once the provider says it was saved. */
  async function confirmMethodUpdate(user: Member): Promise<SubscriptionInfo> {
    const r = await repo.get(user.id);
    if (!r?.method_update_ref || !r.provider) throw new ConflictError('No card change is open.');
    const provider = methodUpdater(r.provider);
    if (!provider) throw new ConflictError('No card change is open.');
    const method = await provider.methodOfUpdate!(r.method_update_ref);
    if (!method) throw new ConflictError('The new card was not saved. Please try again.');
    const replaced = await repo.takeMethodUpdate(user.id, r.method_update_ref, {
      customerRef: method.customerRef ?? null,
      methodRef: method.methodRef,
      label: method.label,
    });
    // The old card goes at the provider (a saved card we no longer charge is only a risk). The
    // update stands whatever the provider answers: a failed detach is queued for the pass to retry.
    if (replaced?.methodRef && replaced.provider && replaced.methodRef !== method.methodRef)
      await detachOld(replaced.provider, { methodRef: replaced.methodRef, customerRef: replaced.customerRef });
    return info(user);
  }

  /** Detaches a replaced method now; on failure it waits in payment_method_detaches for the pass. */
  async function detachOld(providerId: string, m: { methodRef: string; customerRef: string | null }): Promise<void> {
    const provider = canCharge(providerId);
    // Providers without detachMethod have no card change either (Payssion, Cardlink: see payments/).
    if (!provider?.detachMethod) return;
    try {
      await provider.detachMethod(m);
    } catch (err) {
      await repo.queueDetach({
        provider: providerId,
        ...m,
        error: errorText(err),
        nextAt: new Date(now().getTime() + DETACH_RETRY_MS[0]),
      });
    }
  }

  /**
   * The pass's retry of old cards' detaches due as of `asOf` (each claimed first, so two passes at
   * once try it once). Answers how many were detached.
   */
  async function retryDetaches(asOf: Date): Promise<number> {
    const due = await repo.claimDetaches(asOf, new Date(asOf.getTime() + DETACH_RETRY_MS[0]), DETACH_BATCH);
    let done = 0;
    for (const d of due) {
      const provider = canCharge(d.provider);
      const wait = DETACH_RETRY_MS[d.attempts]; // attempts so far, the inline one included
      const next = wait === undefined ? null : new Date(asOf.getTime() + wait);
      if (!provider?.detachMethod) {
        await repo.detachFailed(d.id, `the provider ${d.provider} is not configured`, next);
        continue;
      }
      try {
        await provider.detachMethod({ methodRef: d.method_ref, customerRef: d.customer_ref });
        await repo.detached(d.id);
        done++;
      } catch (err) {
        await repo.detachFailed(d.id, errorText(err), next);
      }
    }
    return done;
  }

  /** Charges one due renewal as of `asOf` (a job). Safe to run twice or on two instances at once. */
  async function renewOne(
    userId: number,
    asOf: Date,
  ): Promise<{ outcome: RenewOutcome; payment?: string; error?: string }> {
    const { provider, ...result } = await chargeDue(userId, asOf);
    if (provider && result.outcome !== 'not-due') deps.onRenewal?.(provider, result.outcome);
    return result;
  }

  /** Under the subscription's lock: a refund in progress finishes first (and turns auto-renew off), or waits for this charge. */
  function chargeDue(
    userId: number,
    asOf: Date,
  ): Promise<{ outcome: RenewOutcome; payment?: string; error?: string; provider?: string }> {
    return lockSubscription(db, userId, (lock) => chargeDueLocked(userId, asOf, lock.signal));
  }

  async function chargeDueLocked(
    userId: number,
    asOf: Date,
    lockLost: AbortSignal,
  ): Promise<{ outcome: RenewOutcome; payment?: string; error?: string; provider?: string }> {
    const [due] = await repo.due(asOf, deps.leadDays, userId);
    if (!due) return { outcome: 'not-due' };
    const provider = canCharge(due.provider);
    if (!provider) return { outcome: 'not-due' };
    const expires = new Date(due.subscription_expires_at);
    const attempt = due.attempts;
    const charge = await nextCharge(due);
    if (!charge) return { outcome: 'not-due' };
    const renewTariff = renewTariffOf(due)!;
    const q = await prices
      .quote(renewTariff, charge.currency, due.price_list ?? 'default', undefined)
      .catch(() => prices.quote(renewTariff, charge.currency, 'default', undefined));
    // One key per period and attempt: whoever runs this first creates the payment, every other run finds it.
    const payment = await repo.insertRenewalPayment({
      publicId: `pay_${randomUUID().replace(/-/g, '')}`,
      userId,
      tariffId: q.tariff.id,
      currency: charge.currency,
      amountMinor: charge.amountMinor,
      priceList: q.priceList,
      provider: provider.id,
      idempotencyKey: `renewal-${expires.getTime()}-${attempt}`,
    });
    // Deleted (or auto-renew turned off) since the renewal was found due: nothing is charged.
    if (!payment) return { outcome: 'not-due' };
    if (payment.status === 'succeeded' || payment.status === 'refunded')
      return { outcome: 'renewed', payment: payment.public_id };
    let result;
    // Counted in the metrics only when this run asked the provider (a re-run finds the earlier attempt).
    const tried = payment.status === 'failed' ? undefined : provider.id;
    if (payment.status === 'failed') {
      result = {
        status: 'failed' as const,
        error: String(payment.failure_reason ?? 'The payment was refused.'),
        unusable: false,
      };
    } else {
      // The lock's connection died meanwhile: another instance may hold the lock now, so the card is
      // not charged by this run (the job fails, is retried and finds this payment by its key).
      lockLost.throwIfAborted();
      result = await provider.chargeSaved!({
        merchantRef: payment.public_id,
        amountMinor: payment.amount_minor,
        currency: payment.currency,
        description: `${q.tariff.name} (renewal)`,
        customerEmail: due.email,
        idempotencyKey: `renewal_${payment.public_id}`,
        notifyUrl: deps.notifyUrl(provider.id),
        method: {
          customerRef: due.customer_ref ?? undefined,
          methodRef: due.method_ref!,
          label: due.method_label ?? provider.id,
        },
      });
      if (result.providerRef) await billingRepository(db).setProviderRef(payment.id, result.providerRef);
    }
    if (result.status === 'succeeded') {
      // The provider's object is the source of truth, as for a webhook: the same path applies it once.
      const state =
        provider.fetchState && result.providerRef
          ? await provider.fetchState(result.providerRef)
          : { providerRef: result.providerRef ?? '', status: 'succeeded' as const };
      await deps.reconciliation.reconcile(
        { ...payment, provider_ref: result.providerRef ?? payment.provider_ref },
        state,
      );
      return { outcome: 'renewed', payment: payment.public_id, provider: tried };
    }
    if (result.status === 'pending') return { outcome: 'pending', payment: payment.public_id, provider: tried };
    const error = result.error ?? 'The payment was refused.';
    await repo.markPaymentFailed(payment.id, error);
    if (tried) deps.onPaymentOutcome?.(payment, 'failed');
    const dueAt = expires.getTime() - deps.leadDays * DAY_MS;
    const next = attempt < retryDays.length && !result.unusable ? new Date(dueAt + retryDays[attempt]! * DAY_MS) : null;
    const nextRetryAt = next && next < expires ? next : null;
    if (await repo.recordFailure(userId, attempt, { error, unusable: !!result.unusable, nextRetryAt })) {
      const lang = languageOf(due.language);
      await notify(due, 'renewalFailed', `${iso(expires)}#${attempt}`, {
        plan: q.tariff.name,
        planKey: q.tariff.key,
        amount: formatAmount(payment.amount_minor, payment.currency),
        method: due.method_label ?? provider.id,
        error: /[.!?]$/.test(error) ? error : `${error}.`,
        retry: nextRetryAt ? day(nextRetryAt) : NO_MORE_RETRIES[lang],
        until: day(expires),
      });
    }
    return { outcome: 'failed', payment: payment.public_id, error, provider: tried };
  }

  async function remind(m: MemberContact & { renews_at?: Date | string | null }) {
    const r = await repo.get(m.user_id);
    if (!r) return false;
    const charge = await nextCharge(r);
    const tariffs = await prices.tariffs();
    return notify(m, 'renewalReminder', iso(m.subscription_expires_at)!, {
      plan: tariffs.find((t) => t.id === renewTariffOf(r))?.name ?? m.tariff_name,
      planKey: tariffs.find((t) => t.id === renewTariffOf(r))?.key ?? '',
      amount: charge ? formatAmount(charge.amountMinor, charge.currency) : '',
      method: r.method_label ?? r.provider ?? '',
      date: day(m.renews_at!),
      until: day(m.subscription_expires_at!),
    });
  }

  return {
    info,
    setAutoRenew,
    startMethodUpdate,
    confirmMethodUpdate,
    retryDetaches,
    /** The same, by user id (the CLI). */
    infoOf: async (userId: number) => info(await memberOf(userId)),
    setAutoRenewOf: async (userId: number, enabled: boolean) => setAutoRenew(await memberOf(userId), enabled),
    afterPayment,
    afterRefund,
    renewOne,
    /** Renewals due as of `asOf`. */
    due: (asOf: Date) => repo.due(asOf, deps.leadDays),
    /** The next `limit` renewals due as of `asOf` and not queued yet, soonest expiry first, with their job keys (the pass queues one job each). */
    toQueue: (asOf: Date, limit: number) => repo.toQueue(asOf, deps.leadDays, limit),
    /** Their jobs exist (see toQueue). */
    markQueued: (queued: { user_id: number; key: string }[]) => repo.markQueued(queued),
    /** Reminders due as of `asOf`, each mailed once per period. */
    async sendReminders(asOf: Date): Promise<number> {
      let sent = 0;
      for (const m of await repo.reminderDue(asOf, deps.leadDays, reminderDays.yearly, reminderDays.other))
        if (await remind(m)) sent++;
      return sent;
    },
    /** Plans that end by `asOf`: the "plan ended" mail, then the plan returns to free (the VPN peers go). */
    async endLapsed(asOf: Date): Promise<number[]> {
      for (const m of await repo.ending(asOf)) {
        await notify(m, 'planEnded', iso(m.subscription_expires_at)!, {
          plan: m.tariff_name,
          planKey: m.tariff_key,
          until: day(m.subscription_expires_at!),
        });
      }
      return deps.reconciliation.expireSubscriptions(asOf);
    },
    /** Mails whose sending failed earlier. */
    async resendNotices(): Promise<number> {
      let sent = 0;
      for (const n of await repo.unsentNotices())
        if (await deliver(n.user_id, n.kind as MailKind, n.period_key, n.payload)) sent++;
      return sent;
    },
    /**
     * The receipt after an applied payment (once per payment). A support grant moved no money: its
     * member is told their plan was extended, never thanked for a payment (issue 22).
     */
    async sendReceipt(p: PaymentRow): Promise<void> {
      const u = await userPlansRepository(db).plan(p.user_id);
      // A deleted account is mailed nothing (its address is a placeholder); the receipt itself stays for accounting.
      if (!u || u.deleted_at) return;
      const tariff = await prices.tariffById(p.tariff_id);
      if (p.provider === 'grant') {
        await notify(
          { user_id: p.user_id, email: u.email, language: u.language, brand: u.brand },
          'grant',
          p.public_id,
          {
            plan: tariff?.name ?? '',
            planKey: tariff?.key ?? '',
            until: u.subscription_expires_at ? day(u.subscription_expires_at) : '∞',
          },
        );
        return;
      }
      // A switch's receipt says how its amount came about: the new plan's price less the credit.
      const lang = languageOf(u.language);
      const from = p.kind === 'switch' ? await prices.tariffById(Number(p.switch_from_tariff_id)) : undefined;
      const amount =
        p.kind === 'switch' && from && p.credit_minor !== null && p.credit_minor !== undefined
          ? switchAmountLabel(lang, {
              amount: formatAmount(p.amount_minor, p.currency),
              price: formatAmount(Number(p.list_amount_minor ?? p.amount_minor), p.currency),
              credit: formatAmount(Number(p.credit_minor), p.currency),
              plan: planName(tariff?.key, tariff?.name ?? '', lang),
              from: planName(from.key, from.name, lang),
            })
          : formatAmount(p.amount_minor, p.currency);
      await notify(
        { user_id: p.user_id, email: u.email, language: u.language, brand: u.brand },
        'receipt',
        p.public_id,
        {
          plan: tariff?.name ?? '',
          planKey: tariff?.key ?? '',
          amount,
          payment: p.public_id,
          billedTo: billedToLabel(lang, await deps.billedTo?.(p.user_id, p.public_id)),
          until: u.subscription_expires_at ? day(u.subscription_expires_at) : '∞',
        },
        paidOn(p) ?? undefined,
      );
    },
    /**
     * The refund notice, once per payment, whichever way the money went back (the customer's
     * money-back, staff, the provider: a refund or a chargeback); claimed and re-sent like every
     * billing mail, so a transport that is down delays it and never loses it.
     */
    async sendRefundNotice(p: PaymentRow): Promise<void> {
      const u = await userPlansRepository(db).plan(p.user_id);
      // A deleted account is mailed nothing (its address is a placeholder); the receipt itself stays for accounting.
      if (!u || u.deleted_at) return;
      const tariff = await prices.tariffById(p.tariff_id);
      const links = notYouLinks(deps.originOf(u.brand), deps.supportUrl(u.brand));
      await notify(
        { user_id: p.user_id, email: u.email, language: u.language, brand: u.brand },
        'refund',
        p.public_id,
        {
          plan: tariff?.name ?? '',
          planKey: tariff?.key ?? '',
          amount: formatAmount(p.amount_minor, p.currency),
          payment: p.public_id,
          time: timeLabel(languageOf(u.language), now()),
          notYouReset: links.reset,
          notYouProfile: links.profile,
          notYouSupport: links.support,
        },
      );
    },
    /** Support: a failed renewal is tried again now (the saved method, if still usable, at the current attempt). */
    async retryNow(userId: number, asOf: Date) {
      const r = await repo.get(userId);
      if (!r) throw new NotFoundError('This customer has no renewal.');
      if (r.unusable)
        throw new ConflictError('The provider reported the saved payment method unusable: it is not tried again.');
      if (!r.auto_renew) throw new ConflictError('Auto-renew is off for this customer.');
      await repo.retryAt(userId, asOf);
      return renewOne(userId, asOf);
    },
    notices: (userId: number) => repo.noticesOf(userId),
    state: (userId: number) => repo.get(userId),
  };
}
export type RenewalsService = ReturnType<typeof renewalsService>;
