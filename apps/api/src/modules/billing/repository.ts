import type { Queryable } from '../../db/client.js';
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
  [key: string]: unknown;
}

export function billingRepository(db: Queryable) {
  return {
    tariffs: () => db.query<TariffRow>('select * from tariffs order by sort, id'),
    prices: () => db.query<PriceRow>('select * from prices'),
    priceLists: async () => (await db.query<{ price_list: string }>('select distinct price_list from prices')).map((r) => r.price_list),
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
    async insertPayment(p: Omit<PaymentRow, 'id' | 'status' | 'applied' | 'period_start' | 'period_end' | 'created_at' | 'paid_at' | 'refunded_at' | 'provider_ref'>): Promise<{ payment: PaymentRow; created: boolean }> {
      const [inserted] = await db.query<PaymentRow>(
        `insert into payments (public_id, user_id, tariff_id, currency, amount_minor, price_list, promo_code, provider, idempotency_key, return_url)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         on conflict (user_id, idempotency_key) do nothing returning *`,
        [p.public_id, p.user_id, p.tariff_id, p.currency, p.amount_minor, p.price_list, p.promo_code, p.provider, p.idempotency_key, p.return_url],
      );
      if (inserted) return { payment: inserted, created: true };
      const [existing] = await db.query<PaymentRow>('select * from payments where user_id = $1 and idempotency_key = $2', [p.user_id, p.idempotency_key]);
      return { payment: existing!, created: false };
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
      return (await db.query<PaymentRow>('select * from payments where provider = $1 and provider_ref = $2', [provider, ref]))[0];
    },
    paymentsOf: (userId: number) => db.query<PaymentRow>('select * from payments where user_id = $1 order by created_at, id', [userId]),
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
