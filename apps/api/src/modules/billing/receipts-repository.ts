import type { Database, Queryable } from '../../db/client.js';

/** What an issued receipt says, fixed at issue (receipts.data). */
export interface ReceiptData {
  seller: { id: string; name: string; address: string[]; taxId: string | null; email: string | null; prefix: string };
  /** Gone once the buyer's account was deleted: the receipt stays for the accounting retention, detached from the person. */
  buyerEmail?: string;
  productName: string;
  tariffName: string;
  /** The plan's key: the PDF names the plan in its language by it (receipts issued before it was kept print tariffName). */
  tariffKey?: string;
  /** ISO; periodEnd null for lifetime. */
  periodStart: string | null;
  periodEnd: string | null;
  amountMinor: number;
  currency: string;
  /** Included in the amount. */
  tax: { label: string; ratePercent: number; amountMinor: number } | null;
  provider: string;
  paymentId: string;
  paidAt: string;
  /** The buyer's billing address and VAT number as they were when the receipt was issued (issue 23); gone with the account. */
  billedTo?: { name: string; lines: string[]; country: string; vatNumber: string };
  /** A plan switch (issue 23): the new plan's price, and the credit for the unused part of the plan it replaced (amountMinor = price − credit). */
  credit?: { listAmountMinor: number; creditMinor: number; fromTariffKey: string; fromTariffName: string };
}

export interface ReceiptRow {
  payment_id: number;
  seller_id: string;
  number: number;
  issued_at: Date | string;
  data: ReceiptData;
}

/** Receipts and their per-seller counters (receipts, receipt_counters): the only SQL on them. */
export function receiptsRepository(db: Database) {
  return {
    async byPayment(paymentId: number): Promise<ReceiptRow | undefined> {
      return (await db.query<ReceiptRow>('select * from receipts where payment_id = $1', [paymentId]))[0];
    },

    /**
     * The payment's receipt, issued now when it has none: the number comes from the seller's
     * counter in the same transaction as the receipt row (no gaps: a rollback takes both back),
     * and the payment row is locked first, so parallel requests for one payment issue one receipt.
     */
    async issue(paymentId: number, sellerId: string, data: ReceiptData): Promise<ReceiptRow> {
      return db.transaction(async (tx) => {
        await tx.query('select id from payments where id = $1 for update', [paymentId]);
        const [existing] = await tx.query<ReceiptRow>('select * from receipts where payment_id = $1', [paymentId]);
        if (existing) return existing;
        const [counter] = await tx.query<{ last_number: number }>(
          `insert into receipt_counters (seller_id, last_number) values ($1, 1)
           on conflict (seller_id) do update set last_number = receipt_counters.last_number + 1 returning last_number`,
          [sellerId],
        );
        const [row] = await tx.query<ReceiptRow>(
          'insert into receipts (payment_id, seller_id, number, data) values ($1, $2, $3, $4::jsonb) returning *',
          [paymentId, sellerId, counter!.last_number, JSON.stringify(data)],
        );
        return row!;
      });
    },
  };
}

/** An erased account's receipts keep what accounting needs (number, date, seller, plan, amount, tax) and lose the buyer's email. */
export async function forgetReceiptBuyer(db: Queryable, userId: number): Promise<void> {
  await db.query(
    `update receipts set data = data - 'buyerEmail' - 'billedTo' where payment_id in (select id from payments where user_id = $1)`,
    [userId],
  );
}
