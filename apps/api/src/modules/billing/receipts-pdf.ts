import fs from 'node:fs';
import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';
import { planName } from '../../mail/plan-names.js';
import type { ReceiptData } from './receipts-repository.js';

/**
 * A receipt as a PDF (pdfkit), in the customer's language. The font is a dependency, not the
 * machine's: Noto Sans SC from the npm package @expo-google-fonts/noto-sans-sc (Google Fonts'
 * static TrueType files, SIL Open Font License 1.1), whose one face has the Latin, Cyrillic and
 * Chinese letters the three languages need, so a receipt reads the same on every machine and
 * `npm test` needs no font installed. pdfkit embeds only the glyphs a receipt uses (a subset).
 */
export type ReceiptLanguage = 'en' | 'ru' | 'zh';

const RECEIPT_LANGUAGES: ReceiptLanguage[] = ['en', 'ru', 'zh'];
const packageFile = createRequire(import.meta.url).resolve;
const FONT_FILES = {
  regular: packageFile('@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf'),
  bold: packageFile('@expo-google-fonts/noto-sans-sc/700Bold/NotoSansSC_700Bold.ttf'),
};

let loaded: { regular: Buffer; bold: Buffer } | undefined;
/** The font files (10 MB each), read once per process, on the first receipt. */
const fonts = () =>
  (loaded ??= { regular: fs.readFileSync(FONT_FILES.regular), bold: fs.readFileSync(FONT_FILES.bold) });

/** Which fonts receipts use, and the languages they print (for tests and support). */
export function fontReport(): { fonts: string[]; languages: ReceiptLanguage[] } {
  return { fonts: [FONT_FILES.regular, FONT_FILES.bold], languages: RECEIPT_LANGUAGES };
}

const TEXT = {
  en: {
    title: 'Receipt',
    number: 'Receipt no.',
    issued: 'Issued',
    seller: 'Seller',
    taxId: 'Tax ID',
    vat: 'VAT / tax ID',
    buyer: 'Billed to',
    payment: 'Payment',
    paidAt: 'Paid on',
    paidWith: 'Paid with',
    item: 'Item',
    period: 'Period',
    amount: 'Amount',
    lifetime: 'Lifetime',
    total: 'Total paid',
    credit: (plan: string) => `Credit for the unused part of ${plan}`,
    taxIncluded: (label: string, rate: string) => `Including ${label} ${rate}%`,
    refunded: (date: string) => `Refunded on ${date}.`,
    thanks: 'Thank you for your purchase.',
  },
  ru: {
    title: 'Квитанция',
    number: 'Квитанция №',
    issued: 'Выдана',
    seller: 'Продавец',
    taxId: 'Налоговый номер',
    vat: 'НДС / налоговый номер',
    buyer: 'Покупатель',
    payment: 'Платёж',
    paidAt: 'Дата оплаты',
    paidWith: 'Способ оплаты',
    item: 'Наименование',
    period: 'Период',
    amount: 'Сумма',
    lifetime: 'Бессрочно',
    total: 'Итого оплачено',
    credit: (plan: string) => `Зачёт неиспользованной части тарифа ${plan}`,
    taxIncluded: (label: string, rate: string) => `В том числе ${label} ${rate}%`,
    refunded: (date: string) => `Возвращён ${date}.`,
    thanks: 'Спасибо за покупку.',
  },
  zh: {
    title: '收据',
    number: '收据编号',
    issued: '开具日期',
    seller: '销售方',
    taxId: '税号',
    vat: '增值税号 / 税号',
    buyer: '购买方',
    payment: '付款编号',
    paidAt: '付款日期',
    paidWith: '付款方式',
    item: '项目',
    period: '服务期限',
    amount: '金额',
    lifetime: '终身',
    total: '实付金额',
    credit: (plan: string) => `${plan} 未使用部分的抵扣`,
    taxIncluded: (label: string, rate: string) => `含${label} ${rate}%`,
    refunded: (date: string) => `已于 ${date} 退款。`,
    thanks: '感谢您的购买。',
  },
} as const;

const PROVIDER_NAMES: Record<string, string> = {
  sandbox: 'Sandbox test card',
  stripe: 'Card (Stripe)',
  payssion: 'Payssion',
  payssionv2: 'Card (Payssion)',
  cardlink: 'Bank card (Cardlink)',
};

export function receiptNumber(prefix: string, number: number): string {
  return `${prefix}-${String(number).padStart(6, '0')}`;
}

/** A country's name in the receipt's language (ICU), its code when unknown. */
function countryName(code: string, language: ReceiptLanguage): string {
  try {
    return new Intl.DisplayNames([language], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}

const money = (minor: number, currency: string) => `${(minor / 100).toFixed(2)} ${currency}`;
const day = (iso: string) => iso.slice(0, 10);

export interface ReceiptDocument {
  number: string;
  issuedAt: string;
  data: ReceiptData;
  refundedAt: string | null;
}

/** The PDF's bytes and the language it was printed in. */
export async function renderReceiptPdf(
  doc: ReceiptDocument,
  language: ReceiptLanguage,
): Promise<{ pdf: Buffer; language: ReceiptLanguage }> {
  const t = TEXT[language];
  const { data } = doc;
  const plan = planName(data.tariffKey, data.tariffName, language);
  const pdf = new PDFDocument({
    size: 'A4',
    margin: 56,
    info: {
      Title: `${t.title} ${doc.number}`,
      Author: data.seller.name,
      Subject: `${data.productName} — ${plan}`,
      CreationDate: new Date(doc.issuedAt),
    },
  });
  const chunks: Buffer[] = [];
  pdf.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve, reject) => {
    pdf.on('end', resolve);
    pdf.on('error', reject);
  });
  const { regular, bold } = fonts();
  pdf.registerFont('body', regular);
  pdf.registerFont('bold', bold);
  const left = pdf.page.margins.left;
  const width = pdf.page.width - left - pdf.page.margins.right;

  pdf.font('bold').fontSize(22).text(data.seller.name, { width });
  pdf.moveDown(0.2).font('body').fontSize(9).fillColor('#444');
  for (const line of data.seller.address) pdf.text(line);
  if (data.seller.taxId) pdf.text(`${t.taxId}: ${data.seller.taxId}`);
  if (data.seller.email) pdf.text(data.seller.email);
  pdf.fillColor('#000').moveDown(1.5);

  pdf.font('bold').fontSize(16).text(`${t.title} ${doc.number}`);
  pdf.moveDown(0.6).font('body').fontSize(10);
  const field = (label: string, value: string) => {
    const y = pdf.y;
    pdf.fillColor('#555').text(label, left, y, { width: 150 });
    pdf.fillColor('#000').text(value, left + 160, y, { width: width - 160 });
    pdf.moveDown(0.25);
  };
  field(t.issued, day(doc.issuedAt));
  // An erased account's receipt has no buyer left to name.
  if (data.billedTo) {
    const country = countryName(data.billedTo.country, language);
    field(t.buyer, [data.billedTo.name, ...data.billedTo.lines, country, data.buyerEmail].filter(Boolean).join('\n'));
    if (data.billedTo.vatNumber) field(t.vat, data.billedTo.vatNumber);
  } else if (data.buyerEmail) field(t.buyer, data.buyerEmail);
  field(t.payment, data.paymentId);
  field(t.paidAt, day(data.paidAt));
  field(t.paidWith, PROVIDER_NAMES[data.provider] ?? data.provider);
  pdf.moveDown(1);

  // The one line item: what was bought, for which period, for how much.
  const cols = [left, left + width * 0.45, left + width * 0.78];
  const header = pdf.y;
  pdf.font('bold').fontSize(10);
  pdf.text(t.item, cols[0], header, { width: width * 0.43 });
  pdf.text(t.period, cols[1], header, { width: width * 0.32 });
  pdf.text(t.amount, cols[2], header, { width: width * 0.22, align: 'right' });
  pdf
    .moveTo(left, pdf.y + 4)
    .lineTo(left + width, pdf.y + 4)
    .strokeColor('#999')
    .stroke();
  pdf.moveDown(0.6);
  const row = pdf.y;
  const period =
    data.periodEnd === null ? t.lifetime : `${day(data.periodStart ?? data.paidAt)} – ${day(data.periodEnd)}`;
  pdf.font('body');
  pdf.text(`${data.productName} — ${plan}`, cols[0], row, { width: width * 0.43 });
  pdf.text(period, cols[1], row, { width: width * 0.32 });
  // A switch's line is the new plan at its price; the credit for the plan it replaced follows as its own line.
  pdf.text(money(data.credit?.listAmountMinor ?? data.amountMinor, data.currency), cols[2], row, {
    width: width * 0.22,
    align: 'right',
  });
  pdf.moveDown(0.6);
  if (data.credit) {
    const y = pdf.y;
    const from = planName(data.credit.fromTariffKey, data.credit.fromTariffName, language);
    pdf.text(t.credit(from), cols[0], y, { width: width * 0.75 });
    pdf.text(`−${money(data.credit.creditMinor, data.currency)}`, cols[2], y, { width: width * 0.22, align: 'right' });
    pdf.moveDown(0.6);
  }
  pdf
    .moveTo(left, pdf.y)
    .lineTo(left + width, pdf.y)
    .strokeColor('#999')
    .stroke();
  pdf.moveDown(0.6);

  const sum = (label: string, value: string, strong = false) => {
    const y = pdf.y;
    pdf.font(strong ? 'bold' : 'body').fontSize(strong ? 12 : 10);
    pdf.text(label, left, y, { width: width * 0.7, align: 'right' });
    pdf.text(value, cols[2], y, { width: width * 0.22, align: 'right' });
    pdf.moveDown(0.3);
  };
  if (data.tax)
    sum(t.taxIncluded(data.tax.label, String(data.tax.ratePercent)), money(data.tax.amountMinor, data.currency));
  sum(t.total, money(data.amountMinor, data.currency), true);
  pdf.moveDown(1.5).font('body').fontSize(10);
  if (doc.refundedAt)
    pdf
      .fillColor('#b00020')
      .font('bold')
      .text(t.refunded(day(doc.refundedAt)), left, pdf.y, { width });
  pdf.fillColor('#000').font('body').moveDown(1).text(t.thanks, left, pdf.y, { width });
  pdf.end();
  await done;
  return { pdf: Buffer.concat(chunks), language };
}
