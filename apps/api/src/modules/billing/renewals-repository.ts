import type { Queryable } from '../../db/client.js';
import type { PaymentRow } from './repository.js';

/** A customer's renewal state (subscription_renewals): what renews, with what, and what came of the attempts. */
export interface RenewalRow {
  user_id: number;
  auto_renew: boolean;
  provider: string | null;
  customer_ref: string | null;
  method_ref: string | null;
  method_label: string | null;
  tariff_id: number | null;
  price_list: string | null;
  currency: string | null;
  renews_at: Date | string | null;
  period_end: Date | string | null;
  failed_attempts: number;
  next_retry_at: Date | string | null;
  last_error: string | null;
  unusable: boolean;
  /** A move to a shorter period, taken at the next renewal (issue 23). */
  scheduled_tariff_id?: number | null;
  /** An open card update at the provider (issue 23). */
  method_update_ref?: string | null;
  method_update_at?: Date | string | null;
}

/** A renewal to charge now: the renewal row with the member's plan; `attempts` counts only this period's failures. */
export interface DueRenewal extends RenewalRow {
  email: string;
  language: string;
  brand: string;
  subscription_expires_at: Date | string;
  attempts: number;
}

/** Someone to mail: the member's contact and plan. */
export interface MemberContact {
  user_id: number;
  email: string;
  language: string;
  brand: string;
  tariff_name: string;
  /** The member's plan key (users.tariff_key): mails name the plan in the member's language by it. */
  tariff_key: string;
  tariff_id: number | null;
  subscription_expires_at: Date | string | null;
  renews_at?: Date | string | null;
}

export interface NoticeRow {
  user_id: number;
  kind: string;
  period_key: string;
  payload: Record<string, string>;
  attempts: number;
}

const LEAD = `(u.subscription_expires_at - make_interval(days => $2::int))`;
// The failures recorded for another period (the member paid by hand since) do not count.
const ATTEMPTS = `(case when r.period_end is not distinct from u.subscription_expires_at then r.failed_attempts else 0 end)`;

/** Every renewal statement: subscription_renewals, billing_notices and the renewal payments. */
export function renewalsRepository(db: Queryable) {
  return {
    async get(userId: number): Promise<RenewalRow | undefined> {
      return (await db.query<RenewalRow>('select * from subscription_renewals where user_id = $1', [userId]))[0];
    },

    /** After a purchase: the method that can renew (or none), the plan to renew at, and the buyer's choice. */
    async saveMethod(
      userId: number,
      r: {
        autoRenew: boolean;
        provider: string | null;
        customerRef: string | null;
        methodRef: string | null;
        label: string | null;
        tariffId: number;
        priceList: string;
        currency: string;
      },
    ): Promise<void> {
      await db.query(
        `insert into subscription_renewals (user_id, auto_renew, provider, customer_ref, method_ref, method_label, tariff_id, price_list, currency)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         on conflict (user_id) do update set auto_renew = excluded.auto_renew, provider = excluded.provider, customer_ref = excluded.customer_ref,
           method_ref = excluded.method_ref, method_label = excluded.method_label, tariff_id = excluded.tariff_id, price_list = excluded.price_list,
           currency = excluded.currency, scheduled_tariff_id = null, unusable = false, failed_attempts = 0, next_retry_at = null, last_error = null, updated_at = now()`,
        [userId, r.autoRenew, r.provider, r.customerRef, r.methodRef, r.label, r.tariffId, r.priceList, r.currency],
      );
    },

    /**
     * After any applied payment: the next renewal's time for the member's new paid-until (copied in
     * SQL, so the comparison with users keeps the database's precision); a new period starts with
     * no failures.
     */
    async schedule(userId: number, leadDays: number): Promise<void> {
      await db.query(
        `update subscription_renewals r set period_end = u.subscription_expires_at,
           renews_at = u.subscription_expires_at - make_interval(days => $2::int),
           failed_attempts = 0, next_retry_at = null, last_error = null, updated_at = now()
         from users u where u.id = r.user_id and r.user_id = $1 and r.period_end is distinct from u.subscription_expires_at`,
        [userId, leadDays],
      );
    },

    /** Whether the member ever had a plan applied (a lapsed one is "expired", never one "free"). */
    async everPaid(userId: number): Promise<boolean> {
      return (await db.query('select 1 from payments where user_id = $1 and applied limit 1', [userId])).length > 0;
    },
    /** An erased account: its renewal (auto-renew, the saved method's references and label) and its billing mails' records go; answers the renewal. */
    async forget(userId: number): Promise<RenewalRow | undefined> {
      await db.query('delete from billing_notices where user_id = $1', [userId]);
      return (
        await db.query<RenewalRow>('delete from subscription_renewals where user_id = $1 returning *', [userId])
      )[0];
    },
    /** Schedules (or, with null, cancels) a move to a shorter period at the next renewal. */
    async setScheduled(userId: number, tariffId: number | null): Promise<boolean> {
      const rows = await db.query(
        'update subscription_renewals set scheduled_tariff_id = $2, updated_at = now() where user_id = $1 returning user_id',
        [userId, tariffId],
      );
      return rows.length === 1;
    },
    /**
     * What renews changes: after a switch (the new plan, whatever was scheduled goes), or after the
     * renewal that took a scheduled change (the shorter plan is what renews from then on).
     */
    async renewAs(userId: number, tariffId: number, priceList: string | null): Promise<void> {
      await db.query(
        `update subscription_renewals set tariff_id = $2, price_list = coalesce($3, price_list), scheduled_tariff_id = null, updated_at = now() where user_id = $1`,
        [userId, tariffId, priceList],
      );
    },
    /** Remembers the card update opened at the provider; only the latest counts. */
    async openMethodUpdate(userId: number, ref: string): Promise<void> {
      await db.query(
        'update subscription_renewals set method_update_ref = $2, method_update_at = now() where user_id = $1',
        [userId, ref],
      );
    },
    /**
     * The new method replaces the saved one, only for the update still open (a replayed or stale
     * return changes nothing); a method the provider called unusable is usable again, and the failures
     * of the period are kept (the next retry uses the new card). Answers the method it replaced when
     * this call made the change (the old one is detached at the provider), else null.
     */
    async takeMethodUpdate(
      userId: number,
      ref: string,
      m: { customerRef: string | null; methodRef: string; label: string },
    ): Promise<{ provider: string | null; customerRef: string | null; methodRef: string | null } | null> {
      const rows = await db.query<{ provider: string | null; customer_ref: string | null; method_ref: string | null }>(
        `with old as (
           select user_id, provider, customer_ref, method_ref from subscription_renewals
            where user_id = $1 and method_update_ref = $2 for update)
         update subscription_renewals s set customer_ref = coalesce($3, s.customer_ref), method_ref = $4, method_label = $5, unusable = false,
           method_update_ref = null, method_update_at = null, updated_at = now()
         from old where s.user_id = old.user_id and s.method_update_ref = $2
         returning old.provider, old.customer_ref, old.method_ref`,
        [userId, ref, m.customerRef, m.methodRef, m.label],
      );
      const [old] = rows;
      return old ? { provider: old.provider, customerRef: old.customer_ref, methodRef: old.method_ref } : null;
    },

    // --- old methods to detach at the provider (payment_method_detaches) --------------------------
    /** A detach the provider did not make: tried again at `nextAt` (null: given up, kept as the note). */
    async queueDetach(d: {
      provider: string;
      customerRef: string | null;
      methodRef: string;
      error: string;
      nextAt: Date | null;
    }): Promise<void> {
      await db.query(
        `insert into payment_method_detaches (provider, customer_ref, method_ref, last_error, next_at) values ($1, $2, $3, $4, $5)`,
        [d.provider, d.customerRef, d.methodRef, d.error.slice(0, 500), d.nextAt],
      );
    },
    /**
     * The detaches due as of `asOf`, each claimed by moving its next try to `claimUntil` (so a pass
     * running twice at once tries each once).
     */
    async claimDetaches(
      asOf: Date,
      claimUntil: Date,
      limit: number,
    ): Promise<{ id: string; provider: string; customer_ref: string | null; method_ref: string; attempts: number }[]> {
      return db.query(
        `update payment_method_detaches set next_at = $2
          where id in (select id from payment_method_detaches where next_at <= $1 order by next_at limit $3 for update skip locked)
          returning id, provider, customer_ref, method_ref, attempts`,
        [asOf, claimUntil, limit],
      );
    },
    async detached(id: string): Promise<void> {
      await db.query('delete from payment_method_detaches where id = $1', [id]);
    },
    async detachFailed(id: string, error: string, nextAt: Date | null): Promise<void> {
      await db.query(
        'update payment_method_detaches set attempts = attempts + 1, last_error = $2, next_at = $3 where id = $1',
        [id, error.slice(0, 500), nextAt],
      );
    },
    async setAutoRenew(userId: number, enabled: boolean): Promise<void> {
      await db.query('update subscription_renewals set auto_renew = $2, updated_at = now() where user_id = $1', [
        userId,
        enabled,
      ]);
    },

    /**
     * Renewals to charge as of `asOf`: auto-renew on, a usable saved method, a paid plan that has
     * not ended, and either the first attempt is due (paid-until minus the lead) or a retry is.
     */
    due(asOf: Date, leadDays: number, userId?: number): Promise<DueRenewal[]> {
      return db.query<DueRenewal>(
        `select r.*, u.email, u.language, u.brand, u.subscription_expires_at, ${ATTEMPTS} as attempts
         from subscription_renewals r join users u on u.id = r.user_id
         where r.auto_renew and not r.unusable and r.provider is not null and r.method_ref is not null and r.tariff_id is not null
           and u.deleted_at is null and u.tariff_key <> 'free-plan' and u.subscription_expires_at > $1
           and ((${ATTEMPTS} = 0 and ${LEAD} <= $1)
             or (${ATTEMPTS} between 1 and 3 and r.next_retry_at is not null and r.next_retry_at <= $1))
           and ($3::int is null or r.user_id = $3)
         order by r.user_id`,
        [asOf, leadDays, userId ?? null],
      );
    },

    /**
     * The next renewals to queue as of `asOf`, the soonest expiry first, at most `limit`: due as
     * due() says, and not already queued for this period and attempt (queued_key, set by
     * markQueued once its job exists). A backlog is then queued once, a batch at a time, instead
     * of being read whole and sent again on every pass.
     */
    toQueue(
      asOf: Date,
      leadDays: number,
      limit: number,
    ): Promise<{ user_id: number; key: string; expires_ms: number }[]> {
      return db.query<{ user_id: number; key: string; expires_ms: number }>(
        `select user_id, key, floor(extract(epoch from expires) * 1000)::float8 as expires_ms from (
           select r.user_id, u.subscription_expires_at as expires, r.queued_key,
             'renew:' || r.user_id || ':' || floor(extract(epoch from u.subscription_expires_at) * 1000)::bigint || ':' || ${ATTEMPTS} as key
           from subscription_renewals r join users u on u.id = r.user_id
           where r.auto_renew and not r.unusable and r.provider is not null and r.method_ref is not null and r.tariff_id is not null
             and u.deleted_at is null and u.tariff_key <> 'free-plan' and u.subscription_expires_at > $1
             and ((${ATTEMPTS} = 0 and u.subscription_expires_at <= $1 + make_interval(days => $2::int))
               or (${ATTEMPTS} between 1 and 3 and r.next_retry_at is not null and r.next_retry_at <= $1))
         ) due
         where queued_key is distinct from key
         order by expires, user_id
         limit $3`,
        [asOf, leadDays, limit],
      );
    },

    /** Their jobs exist: the next passes skip them until the period or the attempt changes. */
    async markQueued(queued: { user_id: number; key: string }[]): Promise<void> {
      if (!queued.length) return;
      await db.query(
        `update subscription_renewals r set queued_key = q.key from unnest($1::int[], $2::text[]) as q(user_id, key) where r.user_id = q.user_id`,
        [queued.map((q) => q.user_id), queued.map((q) => q.key)],
      );
    },

    /**
     * Records a failed attempt of the period once: only the attempt that was current moves the
     * count (a second process recording the same attempt changes nothing).
     */
    async recordFailure(
      userId: number,
      attempt: number,
      f: { error: string; unusable: boolean; nextRetryAt: Date | null },
    ): Promise<boolean> {
      const rows = await db.query(
        `update subscription_renewals r set failed_attempts = $2::int + 1, period_end = u.subscription_expires_at, last_error = $3,
           unusable = r.unusable or $4, next_retry_at = $5, updated_at = now()
         from users u where u.id = r.user_id and r.user_id = $1
           and (case when r.period_end is not distinct from u.subscription_expires_at then r.failed_attempts else 0 end) = $2::int
         returning r.user_id`,
        [userId, attempt, f.error.slice(0, 300), f.unusable, f.nextRetryAt],
      );
      return rows.length === 1;
    },

    /** Support's "retry now": a failed renewal with attempts left becomes due at `at`. */
    async retryAt(userId: number, at: Date): Promise<void> {
      await db.query(
        'update subscription_renewals set next_retry_at = $2 where user_id = $1 and failed_attempts between 1 and 3',
        [userId, at],
      );
    },

    /** Members with auto-renew on whose renewal reminder is due (`days` before the charge, by plan length). */
    reminderDue(asOf: Date, leadDays: number, yearlyDays: number, otherDays: number): Promise<MemberContact[]> {
      return db.query<MemberContact>(
        `select u.id as user_id, u.email, u.language, u.brand, u.tariff_name, u.tariff_key, r.tariff_id, u.subscription_expires_at, ${LEAD} as renews_at
         from subscription_renewals r join users u on u.id = r.user_id join tariffs t on t.id = r.tariff_id
         where r.auto_renew and not r.unusable and r.provider is not null and r.method_ref is not null
           and u.deleted_at is null and u.tariff_key <> 'free-plan' and u.subscription_expires_at > $1 and ${LEAD} > $1
           and ${LEAD} - make_interval(days => case when t.period_days >= 365 then $3::int else $4::int end) <= $1`,
        [asOf, leadDays, yearlyDays, otherDays],
      );
    },

    /** Paid plans (not lifetime) that end by `asOf` and are still on the member: the ones about to lapse. */
    ending(asOf: Date): Promise<MemberContact[]> {
      return db.query<MemberContact>(
        `select u.id as user_id, u.email, u.language, u.brand, u.tariff_name, u.tariff_key, null::int as tariff_id, u.subscription_expires_at
         from users u where u.tariff_key <> 'free-plan' and u.subscription_expires_at is not null and u.subscription_expires_at <= $1 and u.deleted_at is null`,
        [asOf],
      );
    },

    /**
     * A renewal payment: one per period and attempt (the idempotency key), whoever asks first; none
     * (undefined) for an account deleted or no longer renewing. The account's row is locked (shared)
     * for the insert, so a deletion in progress finishes first and this sees it.
     */
    async insertRenewalPayment(p: {
      publicId: string;
      userId: number;
      tariffId: number;
      currency: string;
      amountMinor: number;
      priceList: string;
      provider: string;
      idempotencyKey: string;
    }): Promise<PaymentRow | undefined> {
      const [inserted] = await db.query<PaymentRow>(
        `insert into payments (public_id, user_id, tariff_id, currency, amount_minor, price_list, provider, idempotency_key, kind)
         select $1, $2, $3, $4, $5, $6, $7, $8, 'renewal'
         where exists (select 1 from users u join subscription_renewals r on r.user_id = u.id where u.id = $2 and u.deleted_at is null and r.auto_renew for share of u)
         on conflict (user_id, idempotency_key) do nothing returning *`,
        [p.publicId, p.userId, p.tariffId, p.currency, p.amountMinor, p.priceList, p.provider, p.idempotencyKey],
      );
      if (inserted) return inserted;
      return (
        await db.query<PaymentRow>('select * from payments where user_id = $1 and idempotency_key = $2', [
          p.userId,
          p.idempotencyKey,
        ])
      )[0];
    },
    async markPaymentFailed(id: number, reason: string): Promise<void> {
      await db.query(
        `update payments set status = 'failed', failure_reason = coalesce(failure_reason, $2) where id = $1 and status = 'pending'`,
        [id, reason.slice(0, 300)],
      );
    },
    /** Claims a mail for (user, kind, period): true only for the first claim. */
    async claimNotice(
      userId: number,
      kind: string,
      periodKey: string,
      payload: Record<string, string>,
    ): Promise<boolean> {
      const rows = await db.query(
        `insert into billing_notices (user_id, kind, period_key, payload) values ($1, $2, $3, $4) on conflict do nothing returning user_id`,
        [userId, kind, periodKey, JSON.stringify(payload)],
      );
      return rows.length === 1;
    },
    async noticeSent(userId: number, kind: string, periodKey: string): Promise<void> {
      await db.query(
        'update billing_notices set sent_at = now(), attempts = attempts + 1 where user_id = $1 and kind = $2 and period_key = $3',
        [userId, kind, periodKey],
      );
    },
    async noticeFailed(userId: number, kind: string, periodKey: string): Promise<void> {
      await db.query(
        'update billing_notices set attempts = attempts + 1 where user_id = $1 and kind = $2 and period_key = $3',
        [userId, kind, periodKey],
      );
    },
    /** Mails whose sending failed (SMTP down): re-sent by the next pass, 10 tries at most. */
    unsentNotices: () =>
      db.query<NoticeRow>(
        `select user_id, kind, period_key, payload, attempts from billing_notices where sent_at is null and attempts between 1 and 9 order by created_at limit 100`,
      ),
    noticesOf: (userId: number) =>
      db.query<{ kind: string; period_key: string; created_at: Date; sent_at: Date | null }>(
        'select kind, period_key, created_at, sent_at from billing_notices where user_id = $1 order by created_at',
        [userId],
      ),
  };
}
export type RenewalsRepository = ReturnType<typeof renewalsRepository>;
