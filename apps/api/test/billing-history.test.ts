import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fontReport } from '../src/modules/billing/receipts-pdf.js';
import {
  TestClient,
  createPaymentAs,
  createTestApp,
  mailTo,
  registerUser,
  signedInCall,
  subscriptionOf,
  type TestApp,
} from './helpers.js';
import { pdfText } from './pdf-text.js';

// Issue 13, the customer's side: payment history, receipts (numbered per seller, PDF in the
// member's language) and money-back from the dashboard, on the sandbox provider.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ JOBS: 'false', LIMIT_REGISTER_PER_IP: '100' });
});
afterAll(async () => {
  await t?.close();
});

const DAY = 86_400_000;

async function member(language?: string) {
  const c = new TestClient(t.app);
  const { user } = await registerUser(c);
  if (language) await t.app.db.query('update users set language = $2 where id = $1', [user.id, language]);
  return { c, user };
}

/** Buys a plan with the sandbox's hosted page; answers the payment's public id. */
async function buy(c: TestClient, tariffId = 2, currency = 'USD') {
  const res = await c.post('/api/billing/createPayment', {
    tariffId,
    currency,
    provider: 'sandbox',
    returnPath: '/thank-you',
  });
  expect(res.statusCode, res.body).toBe(200);
  const { paymentId, redirectUrl } = res.json().data as { paymentId: string; redirectUrl: string };
  const sandboxId = new URL(redirectUrl).pathname.split('/').pop()!;
  const paid = await t.app.inject({
    method: 'POST',
    url: `/sandbox/checkout/${sandboxId}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'outcome=pay',
  });
  expect(paid.statusCode).toBe(200);
  return paymentId;
}

async function history(c: TestClient) {
  const res = await c.get('/api/billing/payments');
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { items: Record<string, unknown>[]; moneyBackDays: number };
}

describe('payment history', () => {
  it('lists own payments, failed attempts and refunds, newest first, with what can be done with each', async () => {
    const { c } = await member();
    expect((await history(c)).items).toEqual([]);
    const paid = await buy(c);
    // A declined attempt.
    const res = await c.post('/api/billing/createPayment', {
      tariffId: 3,
      currency: 'EUR',
      provider: 'sandbox',
      returnPath: '/thank-you',
    });
    const declined = res.json().data as { paymentId: string; redirectUrl: string };
    await t.app.inject({
      method: 'POST',
      url: new URL(declined.redirectUrl).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'outcome=decline',
    });

    const h = await history(c);
    expect(h.moneyBackDays).toBe(7);
    expect(h.items.map((i) => [i.paymentId, i.kind, i.status])).toEqual([
      [declined.paymentId, 'purchase', 'failed'],
      [paid, 'purchase', 'succeeded'],
    ]);
    const [failed, ok] = h.items;
    expect(failed).toMatchObject({
      currency: 'EUR',
      provider: 'sandbox',
      receiptAvailable: false,
      refundAvailable: false,
      refundableUntil: null,
      periodStart: null,
    });
    expect(ok).toMatchObject({
      amountMinor: 1299,
      currency: 'USD',
      provider: 'sandbox',
      tariffName: expect.any(String),
      receiptAvailable: true,
      refundAvailable: true,
    });
    expect(new Date(ok!.refundableUntil as string).getTime() - new Date(ok!.date as string).getTime()).toBe(7 * DAY);
    expect(new Date(ok!.periodEnd as string).getTime() - new Date(ok!.periodStart as string).getTime()).toBe(30 * DAY);
  });

  it("the receipt mail links to the host the customer paid on, as the verification mail does (issue 23: it named the brand's first host, where the customer is signed out)", async () => {
    // The customer uses the brand's second host (127.0.0.1; its first is localhost).
    const c = new TestClient(t.app, { host: '127.0.0.1' });
    const { user } = await registerUser(c);
    await buy(c);
    await t.app.settle();
    const texts = (await mailTo(c, t.app, user.email)).map((m) => m.text);
    const verify = texts.map((x) => /(https?:\/\/[^\s/]+)\/sign-in\?/.exec(x)?.[1]).find(Boolean);
    const receipt = texts.map((x) => /(https?:\/\/[^\s/]+)\/subscription\b/.exec(x)?.[1]).find(Boolean);
    expect(verify).toMatch(/^http:\/\/127\.0\.0\.1(:\d+)?$/);
    expect(receipt).toBe(verify);
    // A payment whose return address is no host of ours (written by hand: the checkout never makes one) links to the brand's origin instead.
    const c2 = new TestClient(t.app, { host: '127.0.0.1' });
    const { user: second } = await registerUser(c2);
    const paymentId = await buy(c2);
    await t.app.settle();
    await t.app.db.query(`update payments set return_url = 'https://evil.example/thank-you' where public_id = $1`, [
      paymentId,
    ]);
    const [row] = await t.app.db.query<Record<string, unknown>>(`select * from payments where public_id = $1`, [
      paymentId,
    ]);
    await t.app.billing.renewals.sendReceipt({ ...row, public_id: `${paymentId}x` } as never);
    await t.app.settle();
    const all2 = await mailTo(c2, t.app, second.email);
    const links = all2.map((m) => /(https?:\/\/[^\s/]+)\/subscription\b/.exec(m.text)?.[1]).filter(Boolean);
    expect(links).toHaveLength(2);
    expect(links).toContain('http://127.0.0.1');
    expect(links.find((l) => l !== 'http://127.0.0.1')).toMatch(/^http:\/\/localhost(:\d+)?$/);
  });

  it('shows a support grant without a receipt or a refund; a checkout left unpaid for a day reads expired, and a late payment still applies', async () => {
    const { c, user } = await member();
    await t.app.billing.operator.grant(user.id, '1-month');
    const created = (
      await c.post('/api/billing/createPayment', {
        tariffId: 2,
        currency: 'USD',
        provider: 'sandbox',
        returnPath: '/thank-you',
      })
    ).json().data as { paymentId: string; redirectUrl: string };
    const open = created.paymentId;
    let h = await history(c);
    expect(h.items.map((i) => [i.kind, i.status])).toEqual([
      ['purchase', 'pending'],
      ['grant', 'succeeded'],
    ]);
    expect(h.items[1]).toMatchObject({ receiptAvailable: false, refundAvailable: false, amountMinor: 0 });
    // Just under a day: still open at the provider (a Stripe Checkout Session lives 24 h).
    await t.app.db.query(
      `update payments set created_at = now() - interval '23 hours 59 minutes' where public_id = $1`,
      [open],
    );
    expect((await history(c)).items.find((i) => i.paymentId === open)).toMatchObject({ status: 'pending' });
    // A day: abandoned. Listed as not completed (it used to read "Processing" for a day, then vanish), nothing to do with it.
    await t.app.db.query(`update payments set created_at = now() - interval '2 days' where public_id = $1`, [open]);
    h = await history(c);
    expect(h.items.map((i) => [i.kind, i.status])).toEqual([
      ['grant', 'succeeded'],
      ['purchase', 'expired'],
    ]);
    expect(h.items[1]).toMatchObject({
      paymentId: open,
      receiptAvailable: false,
      refundAvailable: false,
      refundableUntil: null,
      periodStart: null,
    });
    // Only a reading: the payment is still pending in the database, nothing was written.
    const [row] = await t.app.db.query<{ status: string }>('select status from payments where public_id = $1', [open]);
    expect(row!.status).toBe('pending');
    const before = (await subscriptionOf(c)).expiresAt;
    // The provider confirms after the day (a late webhook): the payment applies once, the entry reads paid.
    const sandboxId = new URL(created.redirectUrl).pathname.split('/').pop()!;
    const paid = await t.app.inject({
      method: 'POST',
      url: `/sandbox/checkout/${sandboxId}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'outcome=pay',
    });
    expect(paid.statusCode).toBe(200);
    h = await history(c);
    expect(h.items.find((i) => i.paymentId === open)).toMatchObject({ status: 'succeeded', receiptAvailable: true });
    const after = (await subscriptionOf(c)).expiresAt;
    expect(new Date(after as string).getTime() - new Date(before as string).getTime()).toBe(30 * DAY);
  });

  it('needs a signed-in member and never shows another member’s payments', async () => {
    const a = await member();
    const b = await member();
    await buy(a.c);
    expect((await history(b.c)).items).toEqual([]);
    expect((await b.c.get('/api/billing/payments', { auth: false })).statusCode).toBe(401);
  });
});

describe('receipts', () => {
  it('prints seller, buyer, item, period, amount and number in the member’s language', async () => {
    const { c, user } = await member();
    const paymentId = await buy(c);
    const res = await c.get(`/api/billing/payments/${paymentId}/receipt`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="receipt-WRN-\d{6}\.pdf"$/);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pdfText(res.rawPayload);
    const number = /receipt-(WRN-\d{6})\.pdf/.exec(res.headers['content-disposition'] as string)![1]!;
    expect(text).toContain(`Receipt ${number}`);
    expect(text).toContain('Warren VPN');
    expect(text).toContain(user.email);
    expect(text).toContain(paymentId);
    expect(text).toContain('12.99 USD');
    expect(text).toMatch(/\d{4}-\d{2}-\d{2} – \d{4}-\d{2}-\d{2}/);
    // The same receipt (number) every time.
    const again = await c.get(`/api/billing/payments/${paymentId}/receipt`);
    expect(again.headers['content-disposition']).toBe(res.headers['content-disposition']);
  });

  it('sends the same receipt with the receipt mail: one number, one file, from the mail and the dashboard', async () => {
    const { c, user } = await member();
    const paymentId = await buy(c);
    const mails = (await mailTo(c, t.app, user.email)) as {
      subject: string;
      attachments?: { filename: string; contentType: string; content: string }[];
    }[];
    const receiptMail = mails.find((m) => /receipt/i.test(m.subject));
    expect(receiptMail?.attachments).toHaveLength(1);
    const [file] = receiptMail!.attachments!;
    expect(file!.contentType).toBe('application/pdf');
    const mailed = Buffer.from(file!.content, 'base64');
    expect(mailed.subarray(0, 5).toString()).toBe('%PDF-');
    const res = await c.get(`/api/billing/payments/${paymentId}/receipt`);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${file!.filename}"`);
    const number = /receipt-(WRN-\d{6})\.pdf/.exec(file!.filename)![1]!;
    const mailedText = await pdfText(mailed);
    expect(mailedText).toContain(`Receipt ${number}`);
    expect(mailedText).toContain(paymentId);
    expect(await pdfText(res.rawPayload)).toBe(mailedText);
  });

  it('speaks Russian and Chinese in the font the package ships (no font on the machine needed), subset small', async () => {
    expect(fontReport().languages).toEqual(['en', 'ru', 'zh']);
    for (const f of fontReport().fonts)
      expect(f).toMatch(/node_modules\/@expo-google-fonts\/noto-sans-sc\/.*NotoSansSC_\d+\w+\.ttf$/);
    const ru = await member('ru');
    const ruText = await pdfText((await ru.c.get(`/api/billing/payments/${await buy(ru.c)}/receipt`)).rawPayload);
    expect(ruText).toContain('Квитанция WRN-');
    expect(ruText).toContain('Итого оплачено');
    const zh = await member('zh');
    const zhId = await buy(zh.c);
    const zhPdf = (await zh.c.get(`/api/billing/payments/${zhId}/receipt`)).rawPayload;
    // Only the glyphs used are embedded (the font file is 10 MB; the whole CJK collection's subset was 125 kB).
    expect(zhPdf.length).toBeLessThan(40_000);
    expect(zhPdf.toString('latin1')).toMatch(/\/BaseFont \/[A-Z]{6}\+NotoSansSC-Regular/);
    const zhText = await pdfText(zhPdf);
    expect(zhText).toContain('收据 WRN-');
    expect(zhText).toContain('实付金额');
    // The page's language may be asked for explicitly.
    const enText = await pdfText((await zh.c.get(`/api/billing/payments/${zhId}/receipt?lang=en`)).rawPayload);
    expect(enText).toContain('Total paid');
    expect((await zh.c.get(`/api/billing/payments/${zhId}/receipt?lang=de`)).statusCode).toBe(422);
  });

  it('numbers receipts without gaps per seller, once per payment, when 20 are asked for at once', async () => {
    await t.app.settle(); // earlier tests' receipt mails have issued their numbers
    const [top] = await t.app.db.query<{ max: number | null }>(
      `select max(number) as max from receipts where seller_id = 'warren'`,
    );
    const buyers = await Promise.all(Array.from({ length: 10 }, () => member()));
    // The receipt mails issue these payments' receipts in the background, racing the requests below.
    const payments = await Promise.all(buyers.map(async (b) => ({ c: b.c, id: await buy(b.c) })));
    // Each payment's receipt asked for twice at the same time: 20 requests.
    const answers = await Promise.all(
      payments.flatMap((p) => [
        p.c.get(`/api/billing/payments/${p.id}/receipt`),
        p.c.get(`/api/billing/payments/${p.id}/receipt`),
      ]),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(20).fill(200));
    const names = answers.map((a) => a.headers['content-disposition'] as string);
    for (let i = 0; i < 20; i += 2) expect(names[i]).toBe(names[i + 1]);
    const numbers = names
      .filter((_, i) => i % 2 === 0)
      .map((n) => Number(/WRN-(\d+)/.exec(n)![1]))
      .sort((a, b) => a - b);
    const first = (top?.max ?? 0) + 1;
    expect(numbers).toEqual(Array.from({ length: 10 }, (_, i) => first + i));
    await t.app.settle();
    const rows = await t.app.db.query<{ n: number }>(
      `select count(*)::int as n from receipts where seller_id = 'warren'`,
    );
    expect(rows[0]!.n).toBe(first + 9);
  });

  it('answers 404 for another member’s payment or an unknown id, and 409 for an unpaid one', async () => {
    const a = await member();
    const b = await member();
    const paid = await buy(a.c);
    expect((await b.c.get(`/api/billing/payments/${paid}/receipt`)).statusCode).toBe(404);
    expect((await b.c.get(`/api/billing/payments/nope/receipt`)).statusCode).toBe(404);
    expect(
      (await b.c.get(`/api/billing/payments/${encodeURIComponent('../x')}/receipt`)).statusCode,
    ).toBeGreaterThanOrEqual(400);
    expect((await a.c.get(`/api/billing/payments/${paid}/receipt`, { auth: false })).statusCode).toBe(401);
    const open = (
      await b.c.post('/api/billing/createPayment', {
        tariffId: 2,
        currency: 'USD',
        provider: 'sandbox',
        returnPath: '/thank-you',
      })
    ).json().data.paymentId;
    const unpaid = await b.c.get(`/api/billing/payments/${open}/receipt`);
    expect(unpaid.statusCode).toBe(409);
    expect(unpaid.json().message).toMatch(/no receipt/);
    // No receipt row (and no number) was used up by the refusals.
    const [row] = await t.app.db.query<{ n: number }>(
      `select count(*)::int as n from receipts r join payments p on p.id = r.payment_id where p.public_id = $1`,
      [open],
    );
    expect(row!.n).toBe(0);
  });
});

describe('money-back from the dashboard', () => {
  it('refunds through the provider, takes back exactly that period at once, and only once under parallel requests', async () => {
    const { c } = await member();
    const first = await buy(c);
    const second = await buy(c);
    const before = new Date((await subscriptionOf(c)).expiresAt!).getTime();
    expect((await c.get('/api/billing/subscription')).json().data.autoRenew).toBe(true);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => c.post(`/api/billing/payments/${second}/refund`, {})),
    );
    const codes = answers.map((a) => a.statusCode).sort();
    expect(codes, answers.map((a) => a.body).join('\n')).toEqual([200, 409, 409, 409, 409]);
    const after = new Date((await subscriptionOf(c)).expiresAt!).getTime();
    expect(before - after).toBe(30 * DAY);
    // Asking for the money back ends the renewals too.
    expect((await c.get('/api/billing/subscription')).json().data).toMatchObject({
      status: 'active',
      autoRenew: false,
    });
    const list = answers.find((a) => a.statusCode === 200)!.json().data.items as Record<string, unknown>[];
    expect(list.map((i) => [i.paymentId, i.kind, i.status])).toEqual([
      [second, 'refund', 'refunded'],
      [second, 'purchase', 'refunded'],
      [first, 'purchase', 'succeeded'],
    ]);
    // The provider gave the money back.
    const [row] = await t.app.db.query<{ status: string }>(
      `select s.status from sandbox_payments s join payments p on p.provider_ref = s.id where p.public_id = $1`,
      [second],
    );
    expect(row!.status).toBe('refunded');
    const again = await c.post(`/api/billing/payments/${second}/refund`, {});
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toMatch(/already refunded/);
    // The receipt stays, marked refunded.
    expect(await pdfText((await c.get(`/api/billing/payments/${second}/receipt`)).rawPayload)).toMatch(
      /Refunded on \d{4}-\d{2}-\d{2}/,
    );
  });

  it('a refund of the only payment returns the member to the free plan', async () => {
    const { c } = await member();
    const paid = await buy(c);
    expect((await subscriptionOf(c)).tariffKey).toBe('1-month');
    expect((await c.post(`/api/billing/payments/${paid}/refund`, {})).statusCode).toBe(200);
    expect((await subscriptionOf(c)).tariffKey).toBe('free-plan');
  });

  it('says no outside the window, for a grant, for an unpaid payment and for another member’s payment', async () => {
    const { c, user } = await member();
    const paid = await buy(c);
    await t.app.db.query(`update payments set paid_at = now() - interval '8 days' where public_id = $1`, [paid]);
    const late = await c.post(`/api/billing/payments/${paid}/refund`, {});
    expect(late.statusCode).toBe(422);
    expect(late.json().errors.payment[0]).toMatch(
      /7-day money-back window for this payment ended on \d{4}-\d{2}-\d{2}/,
    );
    expect((await history(c)).items[0]).toMatchObject({ refundAvailable: false });

    const grant = await t.app.billing.operator.grant(user.id, '1-month');
    expect((await c.post(`/api/billing/payments/${grant.public_id}/refund`, {})).statusCode).toBe(422);

    const other = await member();
    const theirs = await buy(other.c);
    const stolen = await c.post(`/api/billing/payments/${theirs}/refund`, {});
    expect(stolen.statusCode).toBe(404);
    expect((await subscriptionOf(other.c)).tariffKey).toBe('1-month');
    expect((await c.post(`/api/billing/payments/%2e%2e/refund`, {})).statusCode).toBeLessThan(500);
  });
});

describe('the seller on a receipt comes from the brand config', () => {
  let branded: TestApp;
  beforeAll(async () => {
    const registry = JSON.parse(
      fs.readFileSync(path.resolve(import.meta.dirname, '../../../config/brands.json'), 'utf8'),
    ) as { brands: Record<string, unknown>[] };
    registry.brands[0]!.seller = {
      id: 'acme',
      legalName: 'ACME VPN Ltd',
      address: ['1 Main Street', '10115 Berlin, Germany'],
      taxId: 'DE123456789',
      email: 'billing@acme.example',
      receiptPrefix: 'ACME',
      tax: { label: 'VAT', ratePercent: 19 },
    };
    delete registry.brands[1]!.seller;
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'warren-brands-')), 'brands.json');
    fs.writeFileSync(file, JSON.stringify(registry));
    branded = await createTestApp({ JOBS: 'false', BRANDS_FILE: file });
  });
  afterAll(async () => {
    await branded?.close();
  });

  async function receiptText(host: string) {
    const c = new TestClient(branded.app, { host });
    await registerUser(c);
    const res = await createPaymentAs(c, {
      tariffId: 2,
      currency: 'USD',
      provider: 'sandbox',
      returnPath: '/thank-you',
    });
    const { paymentId, redirectUrl } = res.data as { paymentId: string; redirectUrl: string };
    await branded.app.inject({
      method: 'POST',
      url: new URL(redirectUrl).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'outcome=pay',
    });
    const pdf = await signedInCall(c, 'GET', `/api/billing/payments/${paymentId}/receipt`);
    expect(pdf.statusCode, pdf.body).toBe(200);
    return { name: pdf.headers['content-disposition'] as string, text: await pdfText(pdf.rawPayload) };
  }

  it('prints the legal name, address, tax id and the tax the price includes, numbered in the seller’s own sequence', async () => {
    const { name, text } = await receiptText('localhost');
    expect(name).toBe('attachment; filename="receipt-ACME-000001.pdf"');
    for (const part of [
      'ACME VPN Ltd',
      '1 Main Street',
      '10115 Berlin, Germany',
      'Tax ID: DE123456789',
      'billing@acme.example',
      'Including VAT 19%',
      '2.07 USD',
      '12.99 USD',
    ]) {
      expect(text).toContain(part);
    }
  });

  it('a brand without seller details prints its product name and numbers on its own', async () => {
    const { name, text } = await receiptText('proxy.localhost');
    expect(name).toBe('attachment; filename="receipt-WARREN-PROXY-000001.pdf"');
    expect(text).toContain('Warren Proxy');
    expect(text).not.toContain('Tax ID');
    expect(text).not.toContain('Including');
  });
});
