import type { Queryable } from '../../db/client.js';

/** Customers' money-back requests (refund_requests): one per payment. */
export function refundRequestRepository(db: Queryable) {
  return {
    /** True for the one request that claimed the payment; false when another one already did. */
    async claim(paymentId: number, userId: number): Promise<boolean> {
      const rows = await db.query('insert into refund_requests (payment_id, user_id) values ($1, $2) on conflict do nothing returning payment_id', [paymentId, userId]);
      return rows.length === 1;
    },
    /** Gives the claim back (the provider refused): the customer may ask again. */
    async release(paymentId: number): Promise<void> {
      await db.query('delete from refund_requests where payment_id = $1', [paymentId]);
    },
  };
}
