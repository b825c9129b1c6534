import type { Database } from '../../db/client.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import type { Brand } from '../../brands/registry.js';
import { userPlansRepository } from '../users/index.js';
import type { PricesService } from './prices.js';
import { type PaymentRow, billingAddressRepository, billingRepository } from './repository.js';
import { type ReceiptLanguage, receiptNumber, renderReceiptPdf } from './receipts-pdf.js';
import { type ReceiptData, receiptsRepository } from './receipts-repository.js';

/** Who sells, as the brand's config says (brands.json `seller`), with the defaults filled in. */
export interface Seller {
  id: string;
  name: string;
  address: string[];
  taxId: string | null;
  email: string | null;
  prefix: string;
  tax: { label: string; ratePercent: number } | null;
}

/** The brand's seller; absent fields: the product name, no address, tax id or tax, the brand's own sequence. */
export function sellerOf(brand: Brand): Seller {
  const s = brand.seller;
  const id = s?.id ?? brand.id;
  return {
    id,
    name: s?.legalName ?? brand.productName,
    address: s?.address ?? [],
    taxId: s?.taxId ?? null,
    email: s?.email ?? null,
    prefix: s?.receiptPrefix ?? id.toUpperCase(),
    tax: s?.tax ?? null,
  };
}

/** The tax a gross amount includes at this rate, in minor units (rounded half up). */
export function includedTax(grossMinor: number, ratePercent: number): number {
  return Math.round((grossMinor * ratePercent) / (100 + ratePercent));
}

/** A payment with a receipt: paid through a provider (a support grant is no sale), for money. */
export function hasReceipt(p: Pick<PaymentRow, 'status' | 'provider' | 'amount_minor'>): boolean {
  return (p.status === 'succeeded' || p.status === 'refunded') && p.provider !== 'grant' && p.amount_minor > 0;
}

export interface ReceiptsDeps {
  db: Database;
  prices: PricesService;
  /** The seller and product name of a brand id (the member's brand). */
  brandOf: (brandId: string) => Brand;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/**
 * Receipts: one per paid payment, numbered once in its seller's gapless sequence when first asked
 * for (from the dashboard or the receipt mail: the same number and the same file).
 */
export function receiptsService(deps: ReceiptsDeps) {
  const repo = billingRepository(deps.db);
  const receipts = receiptsRepository(deps.db);

  /** The payment's receipt, issued on first use; NotFound for another member's payment. */
  async function issue(userId: number, publicId: string) {
    const payment = await repo.paymentByPublicId(publicId);
    if (!payment || payment.user_id !== userId) throw new NotFoundError('No such payment.');
    if (!hasReceipt(payment)) throw new ConflictError('This payment has no receipt: it was not paid.');
    let row = await receipts.byPayment(payment.id);
    if (!row) {
      const user = (await userPlansRepository(deps.db).plan(userId))!;
      const brand = deps.brandOf(user.brand);
      const seller = sellerOf(brand);
      const tariff = await deps.prices.tariffById(payment.tariff_id);
      const from =
        payment.kind === 'switch' && payment.switch_from_tariff_id
          ? await deps.prices.tariffById(Number(payment.switch_from_tariff_id))
          : undefined;
      // A copy of the address as it is now: a later change leaves this receipt as issued.
      const address = await billingAddressRepository(deps.db).get(userId);
      const data: ReceiptData = {
        seller: {
          id: seller.id,
          name: seller.name,
          address: seller.address,
          taxId: seller.taxId,
          email: seller.email,
          prefix: seller.prefix,
        },
        buyerEmail: user.email,
        ...(address
          ? {
              billedTo: {
                name: address.name,
                lines: [
                  address.line1,
                  address.line2,
                  [address.postalCode, address.city].filter(Boolean).join(' '),
                ].filter(Boolean),
                country: address.country,
                vatNumber: address.vatNumber,
              },
            }
          : {}),
        productName: brand.productName,
        tariffName: tariff?.name ?? '',
        tariffKey: tariff?.key ?? '',
        periodStart: iso(payment.period_start),
        periodEnd: iso(payment.period_end),
        amountMinor: payment.amount_minor,
        currency: payment.currency,
        tax: seller.tax
          ? { ...seller.tax, amountMinor: includedTax(payment.amount_minor, seller.tax.ratePercent) }
          : null,
        provider: payment.provider,
        paymentId: payment.public_id,
        paidAt: iso(payment.paid_at ?? payment.created_at)!,
        ...(from && payment.credit_minor !== null && payment.credit_minor !== undefined
          ? {
              credit: {
                listAmountMinor: Number(payment.list_amount_minor ?? payment.amount_minor),
                creditMinor: Number(payment.credit_minor),
                fromTariffKey: from.key,
                fromTariffName: from.name,
              },
            }
          : {}),
      };
      row = await receipts.issue(payment.id, seller.id, data);
    }
    return { payment, row, number: receiptNumber(row.data.seller.prefix, row.number) };
  }

  return {
    issue,
    /** The billing address the payment's receipt shows (issued now if it was not): the receipt mail prints the same. */
    async billedTo(userId: number, publicId: string) {
      const { row } = await issue(userId, publicId);
      return row.data.billedTo;
    },
    /** The receipt as a PDF in the given language (the member's own when none): bytes and a file name. */
    async pdf(userId: number, publicId: string, language?: ReceiptLanguage) {
      const { payment, row, number } = await issue(userId, publicId);
      const lang =
        language ?? (((await userPlansRepository(deps.db).plan(userId))?.language ?? 'en') as ReceiptLanguage);
      const { pdf } = await renderReceiptPdf(
        {
          number,
          issuedAt: iso(row.issued_at)!,
          data: row.data,
          refundedAt: payment.status === 'refunded' ? iso(payment.refunded_at) : null,
        },
        ['en', 'ru', 'zh'].includes(lang) ? lang : 'en',
      );
      return { pdf, filename: `receipt-${number}.pdf`, number };
    },
  };
}
export type ReceiptsService = ReturnType<typeof receiptsService>;
