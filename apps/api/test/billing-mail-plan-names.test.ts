import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SubscriptionInfo } from '@warren/contract';
import { TestClient, createTestApp, mailTo, registerUser, type TestApp } from './helpers.js';
import { fontReport } from '../src/modules/billing/receipts-pdf.js';
import { dropJobsSchema } from './jobs-helpers.js';
import { pdfText } from './pdf-text.js';

/**
 * The billing mails name the plan in the member's language (the web's wording: 1 个月, 1 месяц),
 * not the catalogue's English name: receipt, renewal reminder, renewal failed and plan ended,
 * through the real path (sandbox payment, the renewal pass moved through time).
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ JOBS: 'false' });
});
afterAll(async () => {
  await t?.close();
  await dropJobsSchema(t);
});

const DAY = 86_400_000;
const pass = (asOf: Date) => t.app.services.jobs.runPass(asOf);

async function member(language: 'zh' | 'ru') {
  const c = new TestClient(t.app);
  const { user } = await registerUser(c);
  await t.app.db.query(`update users set verified = true, account_status = 'Active', language = $2 where id = $1`, [
    user.id,
    language,
  ]);
  return { c, user: user as { id: number; email: string } };
}

async function buyMonthWithSandbox(c: TestClient, autoRenew: boolean) {
  const res = await c.post('/api/billing/createPayment', {
    tariffId: 2,
    currency: 'USD',
    provider: 'sandbox',
    returnPath: '/thank-you',
    autoRenew,
  });
  expect(res.statusCode, res.body).toBe(200);
  const sandboxId = new URL(res.json().data.redirectUrl as string).pathname.split('/').pop()!;
  const done = await t.app.inject({
    method: 'POST',
    url: `/sandbox/checkout/${sandboxId}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'outcome=pay',
  });
  expect(done.statusCode).toBe(200);
  const sub = await c.get('/api/billing/subscription');
  return sub.json().data as SubscriptionInfo;
}

/** The text of the member's first payment's receipt PDF, as the dashboard downloads it. */
async function receiptText(c: TestClient) {
  const items = (await c.get('/api/billing/payments')).json().data.items as { paymentId: string; tariffKey: string }[];
  expect(items[0]!.tariffKey).toBe('1-month');
  const res = await c.get(`/api/billing/payments/${items[0]!.paymentId}/receipt`);
  expect(res.statusCode, res.body).toBe(200);
  return pdfText(res.rawPayload);
}

const allText = (mails: { subject: string; text: string; html: string }[]) =>
  mails.map((m) => `${m.subject}\n${m.text}\n${m.html}`).join('\n');

describe('plan names in billing mails', () => {
  it('a Chinese member: receipt, reminder and failed renewal say 1 个月, never 1 Month', async () => {
    const { c, user } = await member('zh');
    const s = await buyMonthWithSandbox(c, true);
    expect(s).toMatchObject({ status: 'active', autoRenew: true, plan: { tariffKey: '1-month' } });
    const paidUntil = new Date(s.paidUntil!);

    let mails = await mailTo(c, t.app, user.email);
    const receipt = mails.filter((m) => m.text.includes('付款编号'));
    expect(receipt).toHaveLength(1);
    expect(receipt[0]!.text).toContain('套餐：1 个月。');

    expect((await pass(new Date(paidUntil.getTime() - 6 * DAY + 3600_000))).reminders).toBe(1);
    mails = await mailTo(c, t.app, user.email);
    const reminder = mails.filter((m) => m.text.includes('自动续订：'));
    expect(reminder).toHaveLength(1);
    expect(reminder[0]!.text).toContain('您的 1 个月 套餐');

    // The card is lost: the renewal fails once and is not tried again.
    const [state] = await t.app.db.query<{ method_ref: string }>(
      'select method_ref from subscription_renewals where user_id = $1',
      [user.id],
    );
    await t.app.services.sandbox!.setCard(state!.method_ref, { unusable: true });
    const r = await pass(new Date(paidUntil.getTime() - 3 * DAY + 3600_000));
    expect(r.renewals).toEqual([expect.objectContaining({ outcome: 'failed' })]);
    mails = await mailTo(c, t.app, user.email);
    const failed = mails.filter((m) => m.text.includes('付款被拒绝'));
    expect(failed).toHaveLength(1);
    expect(failed[0]!.text).toContain('续订 1 个月 套餐');

    expect(allText(mails)).not.toContain('1 Month');
  });

  it('a Russian member whose plan ends without renewal: the receipt and the "plan ended" mail say 1 месяц', async () => {
    const { c, user } = await member('ru');
    const s = await buyMonthWithSandbox(c, false);
    expect(s).toMatchObject({ status: 'active', autoRenew: false });
    // Bought under a name the catalogue has since changed: the mail still knows the plan (by its key, not its name).
    await t.app.db.query(`update users set tariff_name = '1 Month (2025 edition)' where id = $1`, [user.id]);
    const r = await pass(new Date(new Date(s.paidUntil!).getTime() + 60_000));
    expect(r.ended).toContain(user.id);
    const mails = await mailTo(c, t.app, user.email);
    expect(mails.filter((m) => m.text.includes('Тариф: 1 месяц.'))).toHaveLength(1);
    expect(mails.filter((m) => m.text.includes('Тариф 1 месяц закончился'))).toHaveLength(1);
    expect(allText(mails)).not.toContain('1 Month');
    // The receipt PDF (the mail's attachment, the dashboard's download) too.
    const pdf = await receiptText(c);
    expect(pdf).toContain('1 месяц');
    expect(pdf).not.toContain('1 Month');
  });

  it.runIf(fontReport().languages.includes('zh'))('a Chinese receipt PDF says 1 个月', async () => {
    const { c } = await member('zh');
    await buyMonthWithSandbox(c, false);
    const pdf = await receiptText(c);
    expect(pdf.replace(/\s+/g, '')).toContain('1个月');
    expect(pdf).not.toContain('Month');
  });
});
