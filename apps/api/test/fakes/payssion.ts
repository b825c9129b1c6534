import { createHash, createHmac, randomBytes } from 'node:crypto';
import { type Delivery, type FakeRequest, deliver, formBody, startFake } from './http.js';

/**
 * A local Payssion. v1 as documented: POST /api/v1/payment/create and /api/v1/payment/details
 * (form-encoded, md5 api_sig, JSON answers with result_code), notifications as signed form posts
 * (notify_sig) to the notify_url given at creation. v2 (mandates) as we read it (see
 * src/payments/payssion-v2.ts): /api/v2/mandate/create, /api/v2/payment/create,
 * /api/v2/payment/details, HMAC-SHA256 signatures over sorted key=value pairs.
 * order_id is unique per merchant, like at Payssion.
 */
export interface FakePayssionTx {
  transaction_id: string;
  order_id: string;
  pm_id: string;
  amount: string;
  currency: string;
  state: string;
  notify_url: string;
  return_url: string;
  payer_email: string;
  version: 1 | 2;
  mandate_id?: string;
}
export interface FakeMandate {
  mandate_id: string;
  state: 'pending' | 'active' | 'revoked';
  payer_ref: string;
}

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
export const v2Sign = (secret: string, fields: Record<string, string>) =>
  createHmac('sha256', secret)
    .update(
      Object.keys(fields)
        .filter((k) => k !== 'signature' && k !== 'notify_sig')
        .sort()
        .map((k) => `${k}=${fields[k]}`)
        .join('&'),
    )
    .digest('hex');

export async function startFakePayssion(opts: { apiKey: string; secretKey: string }) {
  const txs = new Map<string, FakePayssionTx>();
  const mandates = new Map<string, FakeMandate>();
  let created = 0;
  let charges = 0;
  let down = false;
  const byOrder = (orderId: string) => [...txs.values()].find((t) => t.order_id === orderId);
  const fail = (result_code: number, description: string) => ({ json: { result_code, description } });
  const txView = (t: FakePayssionTx) => ({
    transaction_id: t.transaction_id,
    order_id: t.order_id,
    pm_id: t.pm_id,
    amount: t.amount,
    currency: t.currency,
    state: t.state,
    ...(t.mandate_id ? { mandate_id: t.mandate_id } : {}),
  });

  function newTx(f: URLSearchParams, version: 1 | 2, extra: Partial<FakePayssionTx> = {}): FakePayssionTx {
    const t: FakePayssionTx = {
      transaction_id: `T${randomBytes(8).toString('hex').toUpperCase()}`,
      order_id: f.get('order_id')!,
      pm_id: f.get('pm_id') ?? '',
      amount: f.get('amount')!,
      currency: f.get('currency')!,
      state: 'pending',
      notify_url: f.get('notify_url')!,
      return_url: f.get('return_url') ?? '',
      payer_email: f.get('payer_email') ?? '',
      version,
      ...extra,
    };
    txs.set(t.transaction_id, t);
    return t;
  }

  function v2Check(req: FakeRequest) {
    const fields = Object.fromEntries(req.form);
    if (fields.api_key !== opts.apiKey) return fail(401, 'invalid api_key');
    if (fields.signature !== v2Sign(opts.secretKey, fields)) return fail(402, 'invalid signature');
    if (!/^\d+$/.test(fields.timestamp ?? '') || Math.abs(Date.now() / 1000 - Number(fields.timestamp)) > 300)
      return fail(402, 'stale request');
    return undefined;
  }

  function handle(req: FakeRequest) {
    if (down) return { status: 502, text: 'Bad Gateway' };
    const f = req.form;
    if (req.method !== 'POST') return { status: 405, text: '' };
    switch (req.path) {
      case '/api/v1/payment/create': {
        if (f.get('api_key') !== opts.apiKey) return fail(401, 'invalid api_key');
        const sig = md5(
          [opts.apiKey, f.get('pm_id'), f.get('amount'), f.get('currency'), f.get('order_id'), opts.secretKey].join(
            '|',
          ),
        );
        if (f.get('api_sig') !== sig) return fail(402, 'invalid api signature');
        if (!/^[a-z0-9_]+$/.test(f.get('pm_id') ?? '') || f.get('pm_id') === 'unknown_method')
          return fail(405, 'invalid payment method');
        if (!/^\d+\.\d{2}$/.test(f.get('amount') ?? '')) return fail(407, 'invalid amount');
        if (byOrder(f.get('order_id') ?? '')) return fail(400, 'duplicate order_id');
        const t = newTx(f, 1);
        created++;
        return {
          json: { result_code: 200, redirect_url: `${server.url}/pay/${t.transaction_id}`, transaction: txView(t) },
        };
      }
      case '/api/v1/payment/details': {
        if (f.get('api_key') !== opts.apiKey) return fail(401, 'invalid api_key');
        const sig = md5([opts.apiKey, f.get('transaction_id'), f.get('order_id'), opts.secretKey].join('|'));
        if (f.get('api_sig') !== sig) return fail(402, 'invalid api signature');
        const t = f.get('transaction_id') ? txs.get(f.get('transaction_id')!) : byOrder(f.get('order_id') ?? '');
        if (!t || (f.get('order_id') && t.order_id !== f.get('order_id'))) return fail(412, 'invalid transaction id');
        return { json: { result_code: 200, transaction: txView(t) } };
      }
      case '/api/v2/mandate/create': {
        const bad = v2Check(req);
        if (bad) return bad;
        if (byOrder(f.get('order_id') ?? '')) return fail(400, 'duplicate order_id');
        const mandate: FakeMandate = {
          mandate_id: `M${randomBytes(8).toString('hex').toUpperCase()}`,
          state: 'pending',
          payer_ref: f.get('payer_ref') ?? '',
        };
        mandates.set(mandate.mandate_id, mandate);
        const t = newTx(f, 2, { mandate_id: mandate.mandate_id });
        created++;
        return {
          json: {
            result_code: 200,
            redirect_url: `${server.url}/mandate/${mandate.mandate_id}`,
            mandate,
            transaction: txView(t),
          },
        };
      }
      case '/api/v2/payment/create': {
        const bad = v2Check(req);
        if (bad) return bad;
        const mandate = mandates.get(f.get('mandate_id') ?? '');
        if (!mandate || mandate.state !== 'active') return fail(440, 'mandate is not active');
        if (byOrder(f.get('order_id') ?? '')) return fail(400, 'duplicate order_id');
        // A charge on an active mandate is captured at once.
        const t = newTx(f, 2, { mandate_id: mandate.mandate_id, state: 'completed' });
        created++;
        charges++;
        return { json: { result_code: 200, transaction: txView(t) } };
      }
      case '/api/v2/payment/details': {
        const bad = v2Check(req);
        if (bad) return bad;
        const t = f.get('transaction_id') ? txs.get(f.get('transaction_id')!) : byOrder(f.get('order_id') ?? '');
        if (!t || (f.get('order_id') && t.order_id !== f.get('order_id'))) return fail(412, 'invalid transaction id');
        const mandate = t.mandate_id ? mandates.get(t.mandate_id) : undefined;
        return {
          json: {
            result_code: 200,
            transaction: txView(t),
            ...(mandate ? { mandate: { mandate_id: mandate.mandate_id, state: mandate.state } } : {}),
          },
        };
      }
      default:
        return { status: 404, json: { result_code: 404 } };
    }
  }

  const server = await startFake(handle);

  function notification(t: FakePayssionTx): Record<string, string> {
    if (t.version === 1) {
      const fields = {
        pm_id: t.pm_id,
        transaction_id: t.transaction_id,
        order_id: t.order_id,
        amount: t.amount,
        currency: t.currency,
        state: t.state,
      };
      return {
        ...fields,
        notify_sig: md5([opts.apiKey, t.pm_id, t.amount, t.currency, t.order_id, t.state, opts.secretKey].join('|')),
      };
    }
    const fields = {
      pm_id: t.pm_id,
      transaction_id: t.transaction_id,
      order_id: t.order_id,
      amount: t.amount,
      currency: t.currency,
      state: t.state,
      mandate_id: t.mandate_id ?? '',
      timestamp: String(Math.floor(Date.now() / 1000)),
    };
    return { ...fields, notify_sig: v2Sign(opts.secretKey, fields) };
  }

  return {
    ...server,
    txs,
    mandates,
    /** Provider payments really created (v1 + v2, hosted and direct). */
    createdCount: () => created,
    directCharges: () => charges,
    setDown(value: boolean) {
      down = value;
    },
    byOrder,
    /** The customer finishes on the hosted page (v2: the mandate becomes active). Returns the signed notification fields. */
    complete(transactionId: string, state = 'completed') {
      const t = txs.get(transactionId)!;
      t.state = state;
      if (t.mandate_id && state === 'completed') mandates.get(t.mandate_id)!.state = 'active';
      return notification(t);
    },
    notification: (transactionId: string) => notification(txs.get(transactionId)!),
    revokeMandate(mandateId: string) {
      mandates.get(mandateId)!.state = 'revoked';
    },
    /** Posts notification fields to the notify_url the merchant gave for this transaction. */
    notify(transactionId: string, fields: Record<string, string>): Promise<Delivery> {
      return deliver(txs.get(transactionId)!.notify_url, formBody(fields), {
        'content-type': 'application/x-www-form-urlencoded',
      });
    },
  };
}
export type FakePayssion = Awaited<ReturnType<typeof startFakePayssion>>;
