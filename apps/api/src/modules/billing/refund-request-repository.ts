import type { Queryable } from '../../db/client.js';

export interface PendingRefundRequest {
  email: string;
  public_id: string;
  provider: string;
  amount_minor: number;
  currency: string;
  requested_at: Date | string;
}

/** Customers' money-back requests (refund_requests): one per payment. */
export function refundRequestRepository(db: Queryable) {
  return {
    /** True for the one request that claimed the payment; false when another one already did. */
    async claim(paymentId: number, userId: number): Promise<boolean> {
      const rows = await db.query(
        'insert into refund_requests (payment_id, user_id) values ($1, $2) on conflict do nothing returning payment_id',
        [paymentId, userId],
      );
      return rows.length === 1;
    },
    /** The customer's payments with a request support has not completed yet (the payment is not refunded). */
    async pendingPaymentIdsOf(userId: number): Promise<Set<number>> {
      const rows = await db.query<{ payment_id: string | number }>(
        "select r.payment_id from refund_requests r join payments p on p.id = r.payment_id where r.user_id = $1 and p.status <> 'refunded'",
        [userId],
      );
      return new Set(rows.map((r) => Number(r.payment_id)));
    },
    /** Every request support still has to act on (the payment is not refunded), oldest first. */
    async pending(): Promise<PendingRefundRequest[]> {
      return db.query<PendingRefundRequest>(
        `select u.email, p.public_id, p.provider, p.amount_minor, p.currency, r.requested_at
           from refund_requests r join payments p on p.id = r.payment_id join users u on u.id = r.user_id
          where p.status <> 'refunded' order by r.requested_at, r.payment_id`,
      );
    },
    /** Gives the claim back (the provider refused): the customer may ask again. */
    async release(paymentId: number): Promise<void> {
      await db.query('delete from refund_requests where payment_id = $1', [paymentId]);
    },
  };
}
