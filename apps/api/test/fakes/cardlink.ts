import { createHash, randomBytes } from 'node:crypto';
import { type Delivery, type FakeRequest, deliver, formBody, startFake } from './http.js';

/**
 * A local Cardlink: POST /api/v1/bill/create and GET /api/v1/bill/status?id= behind
 * `Authorization: Bearer {token}`, and postbacks to the shop's Result URL signed with
 * SignatureValue = strtoupper(md5(OutSum:InvId:token)).
 */
export interface FakeBill {
  id: string;
  order_id: string;
  amount: string;
  currency_in: string;
  custom: string;
  shop_id: string;
  status: 'NEW' | 'PROCESS' | 'UNDERPAID' | 'SUCCESS' | 'OVERPAID' | 'FAIL';
}

export async function startFakeCardlink(opts: { apiToken: string; shopId: string; resultUrl?: string }) {
  const bills = new Map<string, FakeBill>();
  let created = 0;
  let resultUrl = opts.resultUrl;
  const authorized = (req: FakeRequest) => req.headers.authorization === `Bearer ${opts.apiToken}`;

  function handle(req: FakeRequest) {
    if (!authorized(req)) return { status: 401, json: { success: 'false', message: 'Unauthenticated.' } };
    if (req.method === 'POST' && req.path === '/api/v1/bill/create') {
      const f = req.form;
      if (f.get('shop_id') !== opts.shopId)
        return { status: 403, json: { success: 'false', message: 'Shop not found.' } };
      if (!/^\d+(\.\d{1,2})?$/.test(f.get('amount') ?? '') || f.get('type') !== 'normal')
        return { status: 422, json: { success: 'false', message: 'The given data was invalid.' } };
      const bill: FakeBill = {
        id: randomBytes(5).toString('hex').toUpperCase(),
        order_id: f.get('order_id') ?? '',
        amount: f.get('amount')!,
        currency_in: f.get('currency_in') ?? 'RUB',
        custom: f.get('custom') ?? '',
        shop_id: opts.shopId,
        status: 'NEW',
      };
      bills.set(bill.id, bill);
      created++;
      return {
        json: {
          success: 'true',
          link_url: `${server.url}/link/${bill.id}`,
          link_page_url: `${server.url}/link/${bill.id}/page`,
          bill_id: bill.id,
        },
      };
    }
    if (req.method === 'GET' && req.path === '/api/v1/bill/status') {
      const bill = bills.get(req.query.get('id') ?? '');
      if (!bill) return { status: 404, json: { success: 'false', message: 'Bill not found.' } };
      return {
        json: {
          success: 'true',
          id: bill.id,
          order_id: bill.order_id,
          active: bill.status === 'NEW',
          status: bill.status,
          type: 'NORMAL',
          amount: bill.amount,
          currency_in: bill.currency_in,
          created_at: new Date().toISOString(),
        },
      };
    }
    return { status: 404, json: { success: 'false', message: 'Not found.' } };
  }

  const server = await startFake(handle);
  const sign = (outSum: string, invId: string, token = opts.apiToken) =>
    createHash('md5').update(`${outSum}:${invId}:${token}`).digest('hex').toUpperCase();

  return {
    ...server,
    bills,
    createdCount: () => created,
    setResultUrl(url: string) {
      resultUrl = url;
    },
    sign,
    /** The customer pays (or fails) on the bill page; returns the postback fields Cardlink sends. */
    pay(billId: string, status: 'SUCCESS' | 'FAIL' | 'OVERPAID' = 'SUCCESS'): Record<string, string> {
      const bill = bills.get(billId)!;
      bill.status = status;
      return {
        Status: status === 'OVERPAID' ? 'SUCCESS' : status,
        InvId: bill.order_id,
        OutSum: bill.amount,
        CurrencyIn: bill.currency_in,
        TrsId: randomBytes(5).toString('hex').toUpperCase(),
        custom: bill.custom,
        Commission: '0.00',
        SignatureValue: sign(bill.amount, bill.order_id),
      };
    },
    postback(fields: Record<string, string>): Promise<Delivery> {
      if (!resultUrl) throw new Error('no Result URL configured');
      return deliver(resultUrl, formBody(fields), { 'content-type': 'application/x-www-form-urlencoded' });
    },
  };
}
export type FakeCardlink = Awaited<ReturnType<typeof startFakeCardlink>>;
