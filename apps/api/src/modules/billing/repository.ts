import type { Database, HeldLock, Queryable } from '../../db/client.js';
import type { PriceRow, PromoCode } from './pricing.js';

export interface TariffRow {
  id: number;
  key: string;
  name: string;
  period_days: number | null;
  is_free: boolean;
  is_lifetime: boolean;
  is_trial: boolean;
  sort: number;
}

export interface PaymentRow {
  id: number;
  public_id: string;
  user_id: number;
  tariff_id: number;
  currency: string;
  amount_minor: number;
  price_list: string;
  promo_code: string | null;
  provider: string;
  provider_ref: string | null;
  status: 'pending' | 'succeeded' | 'failed' | 'refunded';
  idempotency_key: string;
  applied: boolean;
  period_start: Date | string | null;
  period_end: Date | string | null;
  return_url: string | null;
  created_at: Date | string;
  paid_at: Date | string | null;
  refunded_at: Date | string | null;
  /** A support grant of this many days (the period it applies instead of the tariff's); null otherwise. */
  grant_days?: number | null;
  [key: string]: unknown;
}

/** The kind of lock (Database.withLock) that serialises what moves one member's subscription. */
const SUBSCRIPTION_LOCK = 727_020;

/**
 * Runs fn holding the lock of the member's subscription, across instances: a refund and a
 * renewal charge of the same subscription never overlap (issue 20: a money-back refund raced a
 * renewal charge and the card was charged after its refund). Not re-entrant (Database.withLock).
 */
export function lockSubscription<T>(db: Database, userId: number, fn: (lock: HeldLock) => Promise<T>): Promise<T> {
  return db.withLock([SUBSCRIPTION_LOCK, userId], fn);
}

export function billingRepository(db: Queryable) {
  return {
    tariffs: () => db.query<TariffRow>('select * from tariffs order by sort, id'),
    prices: () => db.query<PriceRow>('select * from prices'),
    priceLists: async () =>
      (await db.query<{ price_list: string }>('select distinct price_list from prices')).map((r) => r.price_list),
    async promo(code: string): Promise<PromoCode | undefined> {
      const [row] = await db.query<PromoCode>('select * from promo_codes where upper(code) = upper($1)', [code]);
      return row;
    },
    async usePromo(code: string): Promise<boolean> {
      const rows = await db.query(
        'update promo_codes set used_count = used_count + 1 where upper(code) = upper($1) and (max_uses is null or used_count < max_uses) returning code',
        [code],
      );
      return rows.length === 1;
    },

    /** Inserts, or returns the payment already made with this idempotency key. */
    async insertPayment(
      p: Omit<
        PaymentRow,
        | 'id'
        | 'status'
        | 'applied'
        | 'period_start'
        | 'period_end'
        | 'created_at'
        | 'paid_at'
        | 'refunded_at'
        | 'provider_ref'
      >,
    ): Promise<{ payment: PaymentRow; created: boolean }> {
      const [inserted] = await db.query<PaymentRow>(
        `insert into payments (public_id, user_id, tariff_id, currency, amount_minor, price_list, promo_code, provider, idempotency_key, return_url, grant_days)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         on conflict (user_id, idempotency_key) do nothing returning *`,
        [
          p.public_id,
          p.user_id,
          p.tariff_id,
          p.currency,
          p.amount_minor,
          p.price_list,
          p.promo_code,
          p.provider,
          p.idempotency_key,
          p.return_url,
          p.grant_days ?? null,
        ],
      );
      if (inserted) return { payment: inserted, created: true };
      const [existing] = await db.query<PaymentRow>(
        'select * from payments where user_id = $1 and idempotency_key = $2',
        [p.user_id, p.idempotency_key],
      );
      return { payment: existing!, created: false };
    },
    /** The buyer's auto-renew choice at checkout, kept on the payment until it succeeds. */
    async setAutoRenewChoice(id: number, autoRenew: boolean): Promise<void> {
      await db.query('update payments set auto_renew = $2 where id = $1', [id, autoRenew]);
    },
    async setProviderRef(id: number, ref: string): Promise<void> {
      await db.query('update payments set provider_ref = $2 where id = $1 and provider_ref is null', [id, ref]);
    },
    async paymentById(id: number) {
      return (await db.query<PaymentRow>('select * from payments where id = $1', [id]))[0];
    },
    async paymentByPublicId(publicId: string) {
      return (await db.query<PaymentRow>('select * from payments where public_id = $1', [publicId]))[0];
    },
    async paymentByProviderRef(provider: string, ref: string) {
      return (
        await db.query<PaymentRow>('select * from payments where provider = $1 and provider_ref = $2', [provider, ref])
      )[0];
    },
    paymentsOf: (userId: number) =>
      db.query<PaymentRow>('select * from payments where user_id = $1 order by created_at, id', [userId]),
    /** Locks the payment for the rest of the transaction. */
    async lockPayment(id: number) {
      return (await db.query<PaymentRow>('select * from payments where id = $1 for update', [id]))[0];
    },
    async markFailed(id: number): Promise<void> {
      await db.query(`update payments set status = 'failed' where id = $1`, [id]);
    },
    /** Marks the payment succeeded and applied with the period it bought; undefined when it was applied already. */
    async markApplied(id: number, periodStart: Date, periodEnd: Date | null) {
      const [row] = await db.query<PaymentRow>(
        `update payments set status = 'succeeded', applied = true, paid_at = coalesce(paid_at, now()), period_start = $2, period_end = $3
         where id = $1 and applied = false returning *`,
        [id, periodStart, periodEnd],
      );
      return row;
    },
    /**
     * The member's live paid periods (plan-switch.ts): applied, not refunded, not credited into a
     * switch before, ending after `after`. A switch's period is worth its plan's price before the credit.
     */
    livePeriods: (userId: number, after: Date) =>
      db.query<{
        id: number;
        value_minor: number;
        currency: string;
        period_start: Date | string;
        period_end: Date | string;
      }>(
        `select id, case when kind = 'switch' then coalesce(list_amount_minor, amount_minor) when provider = 'grant' then 0 else amount_minor end as value_minor,
           currency, period_start, period_end
         from payments where user_id = $1 and applied and status = 'succeeded' and superseded_by is null
           and period_start is not null and period_end is not null and period_end > $2
         order by period_start, id`,
        [userId, after],
      ),
    /** The currency the member last paid money in (a switch is priced in it); undefined when they never paid. */
    async lastPaidCurrency(userId: number): Promise<string | undefined> {
      const [row] = await db.query<{ currency: string }>(
        `select currency from payments where user_id = $1 and applied and provider <> 'grant' and amount_minor > 0
         order by paid_at desc nulls last, id desc limit 1`,
        [userId],
      );
      return row?.currency;
    },
    /** Whether a renewal charge of the member is still open at the provider (a switch waits for it). */
    async renewalPending(userId: number): Promise<boolean> {
      const rows = await db.query(
        `select 1 from payments where user_id = $1 and kind = 'renewal' and status = 'pending' and created_at > now() - interval '3 days' limit 1`,
        [userId],
      );
      return rows.length > 0;
    },
    /**
     * A switch's payment, once per member, basis and key (parallel requests find the same row).
     * Answers the row and whether this call made it.
     */
    async insertSwitchPayment(p: {
      publicId: string;
      userId: number;
      tariffId: number;
      currency: string;
      amountMinor: number;
      listAmountMinor: number;
      creditMinor: number;
      priceList: string;
      provider: string;
      idempotencyKey: string;
      returnUrl: string;
      fromTariffId: number;
      basisExpires: Date;
      carriedMs: number;
      autoRenew: boolean;
    }): Promise<{ payment: PaymentRow; created: boolean }> {
      const [inserted] = await db.query<PaymentRow>(
        `insert into payments (public_id, user_id, tariff_id, currency, amount_minor, list_amount_minor, credit_minor, price_list, provider,
           idempotency_key, return_url, kind, switch_from_tariff_id, switch_basis_expires, switch_carried_ms, auto_renew)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'switch', $12, $13, $14, $15)
         on conflict (user_id, idempotency_key) do nothing returning *`,
        [
          p.publicId,
          p.userId,
          p.tariffId,
          p.currency,
          p.amountMinor,
          p.listAmountMinor,
          p.creditMinor,
          p.priceList,
          p.provider,
          p.idempotencyKey,
          p.returnUrl,
          p.fromTariffId,
          p.basisExpires,
          p.carriedMs,
          p.autoRenew,
        ],
      );
      if (inserted) return { payment: inserted, created: true };
      const [existing] = await db.query<PaymentRow>(
        'select * from payments where user_id = $1 and idempotency_key = $2',
        [p.userId, p.idempotencyKey],
      );
      return { payment: existing!, created: false };
    },
    /** A switch's quote that went out of date before it was paid for (another one opened): it will not be offered again. */
    async abandonSwitch(id: number, reason: string): Promise<void> {
      await db.query(
        `update payments set status = 'failed', failure_reason = coalesce(failure_reason, $2) where id = $1 and status = 'pending' and kind = 'switch'`,
        [id, reason],
      );
    },
    /** The member's open switch checkouts (pending, with a provider payment). */
    openSwitches: (userId: number) =>
      db.query<PaymentRow>(
        `select * from payments where user_id = $1 and kind = 'switch' and status = 'pending' order by id`,
        [userId],
      ),
    /** The periods a switch credited end there: no second credit, no money-back for them. */
    async supersede(userId: number, switchId: number, at: Date): Promise<void> {
      await db.query(
        `update payments set superseded_by = $2 where user_id = $1 and id <> $2 and applied and status = 'succeeded'
           and superseded_by is null and period_end is not null and period_end > $3`,
        [userId, switchId, at],
      );
    },
    /** A switch refunded (its money-back undoes it): the payments it credited are live again. */
    async unsupersede(userId: number, switchId: number): Promise<void> {
      await db.query('update payments set superseded_by = null where user_id = $1 and superseded_by = $2', [
        userId,
        switchId,
      ]);
    },
    /** A switch paid after its basis changed: succeeded at the provider, never applied; its money goes back. */
    async markPaidNotApplied(id: number, reason: string) {
      const [row] = await db.query<PaymentRow>(
        `update payments set status = 'succeeded', paid_at = coalesce(paid_at, now()), failure_reason = $2
         where id = $1 and applied = false and status in ('pending', 'failed') returning *`,
        [id, reason],
      );
      return row;
    },
    async markRefunded(id: number): Promise<void> {
      await db.query(`update payments set status = 'refunded', refunded_at = now() where id = $1`, [id]);
    },
    /** Applied payments of a user that came through a provider (support grants are not purchases). */
    async countPurchases(userId: number): Promise<number> {
      const [row] = await db.query<{ n: number }>(
        `select count(*)::int as n from payments where user_id = $1 and applied = true and provider <> 'grant'`,
        [userId],
      );
      return row?.n ?? 0;
    },
    async userOfPayment(publicId: string): Promise<number | undefined> {
      return (await db.query<{ user_id: number }>('select user_id from payments where public_id = $1', [publicId]))[0]
        ?.user_id;
    },
    async setPrice(priceList: string, tariffId: number, currency: string, amountMinor: number): Promise<void> {
      await db.query(
        `insert into prices (price_list, tariff_id, currency, amount_minor) values ($1, $2, $3, $4)
         on conflict (price_list, tariff_id, currency) do update set amount_minor = excluded.amount_minor`,
        [priceList, tariffId, currency, amountMinor],
      );
    },
    /** Prices not named here ('list|tariffId|currency') go. */
    async deletePricesExcept(keep: string[]): Promise<void> {
      await db.query(`delete from prices where not (price_list || '|' || tariff_id || '|' || currency = any($1))`, [
        keep,
      ]);
    },
    async upsertTariff(t: {
      id: number;
      key: string;
      name: string;
      periodDays: number | null;
      free: boolean;
      lifetime: boolean;
      trial: boolean;
      sort: number;
    }): Promise<void> {
      await db.query(
        `insert into tariffs (id, key, name, period_days, is_free, is_lifetime, is_trial, sort) values ($1, $2, $3, $4, $5, $6, $7, $8)
         on conflict (id) do update set key = excluded.key, name = excluded.name, period_days = excluded.period_days, is_free = excluded.is_free,
           is_lifetime = excluded.is_lifetime, is_trial = excluded.is_trial, sort = excluded.sort`,
        [t.id, t.key, t.name, t.periodDays, t.free, t.lifetime, t.trial, t.sort],
      );
    },
    /** A promo code's terms; its usage count stays. */
    async upsertPromo(p: {
      code: string;
      percentOff: number;
      validFrom: string | null;
      validUntil: string | null;
      maxUses: number | null;
      tariffIds: number[] | null;
    }): Promise<void> {
      await db.query(
        `insert into promo_codes (code, percent_off, valid_from, valid_until, max_uses, tariff_ids) values ($1, $2, $3, $4, $5, $6)
         on conflict (code) do update set percent_off = excluded.percent_off, valid_from = excluded.valid_from, valid_until = excluded.valid_until,
           max_uses = excluded.max_uses, tariff_ids = excluded.tariff_ids`,
        [p.code, p.percentOff, p.validFrom, p.validUntil, p.maxUses, p.tariffIds],
      );
    },
    allPrices: () => db.query<PriceRow>('select * from prices order by price_list, tariff_id, currency'),
    async recordEvent(provider: string, eventId: string, kind: string, paymentId: number | null): Promise<boolean> {
      const rows = await db.query(
        `insert into provider_events (provider, event_id, kind, payment_id) values ($1, $2, $3, $4) on conflict do nothing returning event_id`,
        [provider, eventId, kind, paymentId],
      );
      return rows.length === 1;
    },
  };
}
export type BillingRepository = ReturnType<typeof billingRepository>;

/** Conversion postbacks queued on a first purchase and retried by the jobs (conversion_postbacks, postback_attempts). */
export function postbackRepository(db: Queryable) {
  return {
    async queue(userId: number, paymentId: number, url: string): Promise<void> {
      await db.query(
        `insert into conversion_postbacks (user_id, payment_id, url) values ($1, $2, $3) on conflict do nothing`,
        [userId, paymentId, url],
      );
    },
    due: () =>
      db.query<{ id: number; url: string; attempts: number }>(
        `select id, url, attempts from conversion_postbacks where status = 'pending' and next_attempt_at <= now() order by id limit 50`,
      ),
    async recordAttempt(postbackId: number, statusCode: number | null, error: string | null): Promise<void> {
      await db.query('insert into postback_attempts (postback_id, status_code, error) values ($1, $2, $3)', [
        postbackId,
        statusCode,
        error,
      ]);
    },
    async markSent(id: number, attempts: number): Promise<void> {
      await db.query(
        `update conversion_postbacks set status = 'sent', attempts = $2, last_error = null where id = $1`,
        [id, attempts],
      );
    },
    /** Records a failed attempt: retried after delaySeconds, or failed for good after maxAttempts. */
    async markFailedAttempt(
      id: number,
      attempts: number,
      error: string,
      maxAttempts: number,
      delaySeconds: number,
    ): Promise<void> {
      await db.query(
        `update conversion_postbacks set attempts = $2, last_error = $3, status = case when $2::int >= $4::int then 'failed' else 'pending' end,
           next_attempt_at = now() + ($5 || ' seconds')::interval where id = $1`,
        [id, attempts, error, maxAttempts, String(delaySeconds)],
      );
    },
  };
}

/**
 * What a provider without idempotency keys answered for one of our payments, so a retried
 * checkout (another request, another instance, after a restart) reuses it (provider_checkouts).
 */
export function checkoutCacheRepository(db: Queryable, provider: string) {
  return {
    async get(merchantRef: string) {
      const [row] = await db.query<{ provider_ref: string; redirect_url: string | null }>(
        'select provider_ref, redirect_url from provider_checkouts where provider = $1 and merchant_ref = $2',
        [provider, merchantRef],
      );
      return row;
    },
    async put(merchantRef: string, providerRef: string, redirectUrl: string | undefined) {
      await db.query(
        `insert into provider_checkouts (provider, merchant_ref, provider_ref, redirect_url) values ($1, $2, $3, $4)
         on conflict (provider, merchant_ref) do nothing`,
        [provider, merchantRef, providerRef, redirectUrl ?? null],
      );
    },
    async merchantRefOf(providerRef: string): Promise<string | undefined> {
      const [row] = await db.query<{ merchant_ref: string }>(
        `select public_id as merchant_ref from payments where provider = $1 and provider_ref = $2
         union all select merchant_ref from provider_checkouts where provider = $1 and provider_ref = $2 limit 1`,
        [provider, providerRef],
      );
      return row?.merchant_ref;
    },
  };
}

/** Saved payment mandates (payment_mandates): states only move forward, pending → active → revoked. */
export function mandateRepository(db: Queryable, provider: string) {
  return {
    async active(userId: number): Promise<string | undefined> {
      return (
        await db.query<{ mandate_id: string }>(
          `select mandate_id from payment_mandates where user_id = $1 and provider = $2 and status = 'active' order by updated_at desc, id desc limit 1`,
          [userId, provider],
        )
      )[0]?.mandate_id;
    },
    async save(userId: number, mandateId: string, status: 'pending' | 'active' | 'revoked'): Promise<void> {
      await db.query(
        `insert into payment_mandates (user_id, provider, mandate_id, status) values ($1, $4, $2, $3)
         on conflict (provider, mandate_id) do update set status = excluded.status, updated_at = now()
         where payment_mandates.user_id = excluded.user_id
           and array_position(array['pending','active','revoked'], excluded.status) > array_position(array['pending','active','revoked'], payment_mandates.status)`,
        [userId, mandateId, status, provider],
      );
    },
  };
}

/** The built-in sandbox provider's own payment objects (sandbox_payments). */
export interface SandboxRow {
  id: string;
  amount_minor: number;
  currency: string;
  description: string;
  status: 'open' | 'paid' | 'declined' | 'refunded';
  notify_url: string;
  return_url: string;
  merchant_ref: string;
  pending_events: SandboxEvent[];
  save_card: boolean;
  card_id: string | null;
}
/** A test card the sandbox saved for renewals (sandbox_cards). */
export interface SandboxCardRow {
  id: string;
  label: string;
  decline_next: boolean;
  unusable: boolean;
}
export interface SandboxEvent {
  id: string;
  type: 'payment.paid' | 'payment.declined' | 'payment.refunded';
  created: number;
  data: { id: string; merchant_ref: string };
}

/**
 * What billing uses of the built-in sandbox provider (payments/sandbox.ts implements it): its hosted
 * page (webhook-routes.ts) and its webhook re-sending (jobs.ts). Declared here, so billing needs no
 * import of payments/ (which imports billing for these rows).
 */
export interface SandboxHost {
  find(id: string): Promise<SandboxRow | undefined>;
  complete(id: string, outcome: 'pay' | 'decline'): Promise<{ row: SandboxRow | undefined; event?: SandboxEvent }>;
  acknowledge(id: string, eventId: string): Promise<void>;
  undelivered(): Promise<{ row: SandboxRow; event: SandboxEvent }[]>;
  signedDelivery(event: SandboxEvent): { body: string; signature: string };
}

export function sandboxRepository(db: Queryable) {
  return {
    find: async (id: string) => (await db.query<SandboxRow>('select * from sandbox_payments where id = $1', [id]))[0],
    /** Idempotent like a real provider: the same key returns the same payment. */
    async insert(p: {
      id: string;
      amountMinor: number;
      currency: string;
      description: string;
      notifyUrl: string;
      returnUrl: string;
      merchantRef: string;
      idempotencyKey: string;
      saveCard?: boolean;
      cardId?: string;
    }) {
      const [row] = await db.query<SandboxRow>(
        `insert into sandbox_payments (id, amount_minor, currency, description, notify_url, return_url, merchant_ref, idempotency_key, save_card, card_id)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         on conflict (idempotency_key) do update set idempotency_key = excluded.idempotency_key
         returning *`,
        [
          p.id,
          p.amountMinor,
          p.currency,
          p.description,
          p.notifyUrl,
          p.returnUrl,
          p.merchantRef,
          p.idempotencyKey,
          p.saveCard ?? false,
          p.cardId ?? null,
        ],
      );
      return row!;
    },
    card: async (id: string) => (await db.query<SandboxCardRow>('select * from sandbox_cards where id = $1', [id]))[0],
    async insertCard(id: string, label: string): Promise<void> {
      await db.query('insert into sandbox_cards (id, label) values ($1, $2) on conflict do nothing', [id, label]);
    },
    async attachCard(paymentId: string, cardId: string): Promise<SandboxRow | undefined> {
      const [row] = await db.query<SandboxRow>(
        'update sandbox_payments set card_id = $2 where id = $1 and card_id is null returning *',
        [paymentId, cardId],
      );
      return row;
    },
    async setCard(id: string, change: { declineNext?: boolean; unusable?: boolean }): Promise<boolean> {
      const rows = await db.query(
        'update sandbox_cards set decline_next = coalesce($2, decline_next), unusable = coalesce($3, unusable) where id = $1 returning id',
        [id, change.declineNext ?? null, change.unusable ?? null],
      );
      return rows.length === 1;
    },
    /** Takes the card's "decline the next charge" flag: true once, for one charge. */
    async takeDeclineNext(id: string): Promise<boolean> {
      const rows = await db.query(
        'update sandbox_cards set decline_next = false where id = $1 and decline_next returning id',
        [id],
      );
      return rows.length === 1;
    },
    /** Moves the payment from one of `from` to `to` and queues the event; undefined when it was in another state. */
    async transition(id: string, from: SandboxRow['status'][], to: SandboxRow['status'], event: SandboxEvent) {
      const [updated] = await db.query<SandboxRow>(
        `update sandbox_payments set status = $2, pending_events = pending_events || $3::jsonb where id = $1 and status = any($4) returning *`,
        [id, to, JSON.stringify([event]), from],
      );
      return updated;
    },
    async acknowledge(id: string, eventId: string): Promise<void> {
      await db.query(
        `update sandbox_payments set pending_events = coalesce((select jsonb_agg(e) from jsonb_array_elements(pending_events) e where e->>'id' <> $2), '[]'::jsonb) where id = $1`,
        [id, eventId],
      );
    },
    withPendingEvents: () =>
      db.query<SandboxRow>(`select * from sandbox_payments where jsonb_array_length(pending_events) > 0`),
    /** Forgets a saved card, as a provider deletes a customer's payment method: it can never be charged again. */
    async forgetCard(id: string): Promise<void> {
      await db.query('update sandbox_payments set card_id = null where card_id = $1', [id]);
      await db.query('delete from sandbox_cards where id = $1', [id]);
    },
  };
}

/**
 * The billing tables' part of an account's erasure (README: the data map). Payments, provider
 * events stay for the accounting retention, under the account's number; what they said about the
 * person goes: saved mandates, affiliate postbacks (receipts: receipts-repository.ts).
 * Answers the sandbox cards the account's payments saved (forgotten after the commit).
 */
/** The member's billing address (billing_addresses): the only SQL on it. */
export function billingAddressRepository(db: Queryable) {
  type Row = {
    name: string;
    line1: string;
    line2: string;
    city: string;
    postal_code: string;
    country: string;
    vat_number: string;
  };
  const toAddress = (r: Row) => ({
    name: r.name,
    line1: r.line1,
    line2: r.line2,
    city: r.city,
    postalCode: r.postal_code,
    country: r.country,
    vatNumber: r.vat_number,
  });
  return {
    async get(userId: number) {
      const [row] = await db.query<Row>('select * from billing_addresses where user_id = $1', [userId]);
      return row ? toAddress(row) : null;
    },
    async save(
      userId: number,
      a: {
        name: string;
        line1: string;
        line2: string;
        city: string;
        postalCode: string;
        country: string;
        vatNumber: string;
      },
    ) {
      const [row] = await db.query<Row>(
        `insert into billing_addresses (user_id, name, line1, line2, city, postal_code, country, vat_number)
         values ($1, $2, $3, $4, $5, $6, $7, $8)
         on conflict (user_id) do update set name = excluded.name, line1 = excluded.line1, line2 = excluded.line2, city = excluded.city,
           postal_code = excluded.postal_code, country = excluded.country, vat_number = excluded.vat_number, updated_at = now()
         returning *`,
        [userId, a.name, a.line1, a.line2, a.city, a.postalCode, a.country, a.vatNumber],
      );
      return toAddress(row!);
    },
    async remove(userId: number): Promise<void> {
      await db.query('delete from billing_addresses where user_id = $1', [userId]);
    },
  };
}

export function billingErasureRepository(db: Queryable) {
  return {
    async erase(userId: number): Promise<{ sandboxCards: string[] }> {
      await db.query('delete from billing_addresses where user_id = $1', [userId]);
      await db.query(`delete from payment_mandates where user_id = $1`, [userId]);
      await db.query(`delete from conversion_postbacks where user_id = $1`, [userId]);
      const cards = await db.query<{ card_id: string }>(
        `select distinct s.card_id from sandbox_payments s join payments p on p.public_id = s.merchant_ref where p.user_id = $1 and s.card_id is not null`,
        [userId],
      );
      return { sandboxCards: cards.map((c) => c.card_id) };
    },
  };
}
