import { CHECKOUT_EXPIRES_MS, type PaymentHistory, type PaymentHistoryItem } from '@warren/contract';
import type { Database } from '../../db/client.js';
import type { PaymentProvider } from '../../payments/provider.js';
import type { PricesService } from './prices.js';
import { hasReceipt } from './receipts.js';
import { refundableUntil } from './refund-request.js';
import { refundRequestRepository } from './refund-request-repository.js';
import { billingRepository } from './repository.js';

export interface HistoryDeps {
  db: Database;
  prices: PricesService;
  providers: Partial<Record<string, PaymentProvider>>;
  moneyBackDays: number;
  now: () => Date;
}

const iso = (d: Date | string | null | undefined) => (d === null || d === undefined ? null : new Date(d).toISOString());

/** A customer's own payments as the dashboard lists them: payments, renewals, failed attempts and refunds, newest first. */
export function historyService(deps: HistoryDeps) {
  const repo = billingRepository(deps.db);
  const requests = refundRequestRepository(deps.db);
  return {
    async list(userId: number): Promise<PaymentHistory> {
      const now = deps.now();
      const [payments, tariffs, requested] = await Promise.all([
        repo.paymentsOf(userId),
        deps.prices.tariffs(),
        requests.pendingPaymentIdsOf(userId),
      ]);
      const nameOf = new Map(tariffs.map((t) => [t.id, t.name]));
      const keyOf = new Map(tariffs.map((t) => [t.id, t.key]));
      const items: PaymentHistoryItem[] = [];
      for (const p of payments) {
        // A checkout left unpaid past CHECKOUT_EXPIRES_MS reads as not completed (issue 23: it used to
        // read "Processing" beside real payments). Decided at read time, not by a job writing
        // 'failed': nothing is written, so a provider that confirms later (a late webhook, a bank
        // transfer settling) moves the still-pending payment to succeeded as it always did, and
        // the entry reads "Paid" from then on.
        const expired =
          p.status === 'pending' && now.getTime() - new Date(p.created_at).getTime() >= CHECKOUT_EXPIRES_MS;
        const until = refundableUntil(p, deps.moneyBackDays);
        const refundRequested = p.status === 'succeeded' && requested.has(Number(p.id));
        const base = {
          paymentId: p.public_id,
          amountMinor: p.amount_minor,
          currency: p.currency,
          provider: p.provider,
          tariffName: nameOf.get(p.tariff_id) ?? '',
          tariffKey: keyOf.get(p.tariff_id) ?? '',
          periodStart: p.applied ? iso(p.period_start) : null,
          periodEnd: p.applied ? iso(p.period_end) : null,
        };
        items.push({
          ...base,
          id: p.public_id,
          kind:
            p.provider === 'grant'
              ? 'grant'
              : p.kind === 'renewal'
                ? 'renewal'
                : p.kind === 'switch'
                  ? 'switch'
                  : 'purchase',
          status: expired ? 'expired' : p.status,
          date: iso(p.paid_at ?? p.created_at)!,
          failureReason: p.status === 'failed' && typeof p.failure_reason === 'string' ? p.failure_reason : null,
          receiptAvailable: hasReceipt(p),
          // Through the provider's refund call, or as a request support completes (Payssion, Cardlink).
          refundAvailable: p.status === 'succeeded' && until !== null && now <= until && !refundRequested,
          refundRequested,
          refundableUntil: p.status === 'succeeded' ? iso(until) : null,
        });
        if (p.status === 'refunded') {
          items.push({
            ...base,
            id: `${p.public_id}:refund`,
            kind: 'refund',
            status: 'refunded',
            date: iso(p.refunded_at ?? p.paid_at ?? p.created_at)!,
            failureReason: null,
            receiptAvailable: false,
            refundAvailable: false,
            refundRequested: false,
            refundableUntil: null,
          });
        }
      }
      items.sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : a.kind === 'refund' ? -1 : 1));
      return { items, moneyBackDays: deps.moneyBackDays };
    },
  };
}
export type HistoryService = ReturnType<typeof historyService>;
