import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands as billingCommands } from '../src/cli/billing.js';
import type { CliContext } from '../src/cli/command.js';
import { type FakeCardlink, startFakeCardlink } from './fakes/cardlink.js';
import { TestClient, createTestApp, registerUser, subscriptionOf, type TestApp } from './helpers.js';

// Issue 13, money-back for a provider without a refund call (Cardlink here; Payssion is the same
// path): the dashboard records a request, support lists it and completes it with the operator refund.
const TOKEN = 'cardlink-api-token-test';
const SHOP = 'shop-42';

let t: TestApp;
let cardlink: FakeCardlink;
let port: number;

beforeAll(async () => {
  cardlink = await startFakeCardlink({ apiToken: TOKEN, shopId: SHOP });
  t = await createTestApp({
    JOBS: 'false',
    CARDLINK_API_TOKEN: TOKEN,
    CARDLINK_SHOP_ID: SHOP,
    CARDLINK_API_URL: cardlink.url,
    LIMIT_REGISTER_PER_IP: '100',
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
  cardlink.setResultUrl(`http://127.0.0.1:${port}/api/billing/webhooks/cardlink`);
});
afterAll(async () => {
  await t?.close();
  await cardlink?.close();
});

async function cli(command: string, flags: CliContext['flags'] = {}) {
  const lines: string[] = [];
  const ctx: CliContext = {
    db: t.app.db,
    config: t.config,
    services: async () => t.app.services,
    flags,
    positionals: [],
    print: (l) => lines.push(l),
  };
  await billingCommands[command]!.run(ctx);
  return lines.join('\n');
}

/** A customer who paid 1 month with Cardlink (the fake's signed SUCCESS postback). */
async function paidWithCardlink() {
  const c = new TestClient(t.app, { host: `127.0.0.1:${port}` });
  const { user } = await registerUser(c);
  const res = await c.post('/api/billing/createPayment', { tariffId: 2, currency: 'RUB', provider: 'cardlink' });
  expect(res.statusCode, res.body).toBe(200);
  const { paymentId } = res.json().data as { paymentId: string };
  const bill = [...cardlink.bills.values()].find((b) => b.order_id === paymentId)!;
  expect((await cardlink.postback(cardlink.pay(bill.id))).status).toBe(200);
  expect((await subscriptionOf(c)).tariffKey).toBe('1-month');
  return { c, user, paymentId };
}

async function items(c: TestClient) {
  const res = await c.get('/api/billing/payments');
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().data as { items: Record<string, unknown>[] }).items;
}

describe('a refund request for a provider without a refund call', () => {
  it('parallel requests record one; the history and the CLI show it; the operator refund completes it and the list drops it', async () => {
    const { c, user, paymentId } = await paidWithCardlink();
    expect((await items(c))[0]).toMatchObject({
      paymentId,
      provider: 'cardlink',
      status: 'succeeded',
      refundAvailable: true,
      refundRequested: false,
    });

    const answers = await Promise.all(
      Array.from({ length: 5 }, () => c.post(`/api/billing/payments/${paymentId}/refund`, {})),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(5).fill(200));
    for (const a of answers)
      expect(a.json().data).toMatchObject({
        outcome: 'requested',
        items: [{ paymentId, status: 'succeeded', refundAvailable: false, refundRequested: true }],
      });
    const rows = await t.app.db.query<{ n: string | number }>(
      'select count(*) as n from refund_requests r join payments p on p.id = r.payment_id where p.public_id = $1',
      [paymentId],
    );
    expect(Number(rows[0]!.n)).toBe(1);
    // Nothing was taken back yet: the plan stays until support refunds.
    expect((await subscriptionOf(c)).tariffKey).toBe('1-month');
    expect((await items(c))[0]).toMatchObject({ refundAvailable: false, refundRequested: true });
    // Asking again answers the same, with no second request.
    expect((await c.post(`/api/billing/payments/${paymentId}/refund`, {})).json().data.outcome).toBe('requested');

    const listed = await cli('refund-requests');
    const line = listed.split('\n').find((l) => l.includes(paymentId));
    expect(line).toBeDefined();
    expect(line).toContain(user.email);
    expect(line).toContain('cardlink');
    expect(line).toContain('999.00 RUB');
    expect(line).toMatch(/requested \d{4}-\d\d-\d\dT/);

    // Another member cannot see or make it.
    const other = new TestClient(t.app, { host: `127.0.0.1:${port}` });
    await registerUser(other);
    expect((await other.post(`/api/billing/payments/${paymentId}/refund`, {})).statusCode).toBe(404);

    expect(await cli('refund', { payment: paymentId })).toMatch(/Refunded/);
    expect(await cli('refund-requests')).not.toContain(paymentId);
    const after = await items(c);
    expect(after.map((i) => [i.kind, i.status])).toEqual([
      ['refund', 'refunded'],
      ['purchase', 'refunded'],
    ]);
    expect(after.every((i) => i.refundRequested === false && i.refundAvailable === false)).toBe(true);
    expect((await subscriptionOf(c)).tariffKey).toBe('free-plan');
    expect((await c.post(`/api/billing/payments/${paymentId}/refund`, {})).statusCode).toBe(409);
  });

  it('outside the window it is refused as before, and nothing is recorded', async () => {
    const { c, paymentId } = await paidWithCardlink();
    await t.app.db.query("update payments set paid_at = now() - interval '8 days' where public_id = $1", [paymentId]);
    expect((await items(c))[0]).toMatchObject({ refundAvailable: false, refundRequested: false });
    const late = await c.post(`/api/billing/payments/${paymentId}/refund`, {});
    expect(late.statusCode).toBe(422);
    expect(await cli('refund-requests')).not.toContain(paymentId);
  });
});
