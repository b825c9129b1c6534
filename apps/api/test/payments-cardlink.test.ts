import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptText, encryptText } from '../src/lib/secrets.js';
import { cardlinkProvider } from '../src/payments/cardlink.js';
import { ProviderUnavailable } from '../src/payments/provider-http.js';
import { type FakeCardlink, startFakeCardlink } from './fakes/cardlink.js';
import { TestClient, createTestApp, registerUser, type TestApp, subscriptionOf } from './helpers.js';

/** Cardlink bills against a local fake; postbacks to our Result URL over real HTTP. */
const TOKEN = 'cardlink-api-token-test';
const SHOP = 'shop-42';
const PROXY_KEY = 'q0Hn7QmZ0nS2b1uV7H3cJm0a9w8E5r2T1y4U6i8O0pA='; // config/brands.json, brand warren-proxy

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
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
  // Cardlink's Result URL is set once in the shop's settings.
  cardlink.setResultUrl(`http://127.0.0.1:${port}/api/billing/webhooks/cardlink`);
});
afterAll(async () => {
  await t?.close();
  await cardlink?.close();
});

async function customer(host = `127.0.0.1:${port}`) {
  const c = new TestClient(t.app, { host });
  const { user, token } = await registerUser(c);
  return { c, user, token };
}
const subscription = subscriptionOf;
async function checkout(c: TestClient, body: Record<string, unknown> = {}) {
  const res = await c.post('/api/billing/createPayment', {
    tariffId: 2,
    currency: 'RUB',
    provider: 'cardlink',
    ...body,
  });
  expect(res.statusCode, res.body).toBe(200);
  const data = res.json().data as { paymentId: string; redirectUrl: string };
  return { data, bill: [...cardlink.bills.values()].find((b) => b.order_id === data.paymentId)! };
}
const paymentRow = async (publicId: string) =>
  (
    await t.app.db.query<{ status: string; applied: boolean; provider_ref: string }>(
      'select status, applied, provider_ref from payments where public_id = $1',
      [publicId],
    )
  )[0]!;
const days = (iso: string | null) => Math.round((new Date(iso!).getTime() - Date.now()) / 86_400_000);

describe('Cardlink', () => {
  it('creates a bill; the signed SUCCESS postback activates the plan and is answered OK', async () => {
    const { c } = await customer();
    const { data, bill } = await checkout(c);
    expect(bill).toMatchObject({
      amount: '999.00',
      currency_in: 'RUB',
      custom: data.paymentId,
      shop_id: SHOP,
      status: 'NEW',
    });
    expect(data.redirectUrl).toBe(`${cardlink.url}/link/${bill.id}/page`);
    const create = cardlink.requests.find(
      (r) => r.path === '/api/v1/bill/create' && r.form.get('order_id') === data.paymentId,
    )!;
    expect(Object.fromEntries(create.form)).toMatchObject({
      type: 'normal',
      payer_pays_commission: '0',
      name: expect.any(String),
      description: expect.any(String),
    });
    expect((await paymentRow(data.paymentId)).provider_ref).toBe(bill.id);

    const res = await cardlink.postback(cardlink.pay(bill.id));
    expect(res).toEqual({ status: 200, body: 'OK' });
    expect(await subscription(c)).toMatchObject({ tariffKey: '1-month', accountStatus: 'Active' });
    expect(await paymentRow(data.paymentId)).toMatchObject({ status: 'succeeded', applied: true });
    expect(
      cardlink.requests.some(
        (r) =>
          r.method === 'GET' &&
          r.path === '/api/v1/bill/status' &&
          r.query.get('id') === bill.id &&
          r.headers.authorization === `Bearer ${TOKEN}`,
      ),
    ).toBe(true);
  });

  it('an unsigned, wrongly signed or tampered postback is a 400 with no side effects', async () => {
    const { c } = await customer();
    const { data, bill } = await checkout(c);
    const good = cardlink.pay(bill.id);
    const { SignatureValue: _s, ...unsigned } = good;
    const attempts = [
      await cardlink.postback(unsigned),
      await cardlink.postback({ ...good, SignatureValue: cardlink.sign(good.OutSum!, good.InvId!, 'another-token') }),
      await cardlink.postback({ ...good, OutSum: '1.00' }),
      await cardlink.postback({ ...good, InvId: 'pay_someone_else' }),
    ];
    expect(attempts.map((a) => a.status)).toEqual([400, 400, 400, 400]);
    expect((await subscription(c)).tariffKey).toBe('free-plan');
    expect(await paymentRow(data.paymentId)).toMatchObject({ status: 'pending', applied: false });
    // The lowercase signature is the same md5: accepted.
    expect((await cardlink.postback({ ...good, SignatureValue: good.SignatureValue!.toLowerCase() })).status).toBe(200);
    expect((await subscription(c)).tariffKey).toBe('1-month');
  });

  it('a signed SUCCESS postback for a bill Cardlink reports as failed does not activate', async () => {
    const { c } = await customer();
    const { data, bill } = await checkout(c);
    const claims = cardlink.pay(bill.id, 'SUCCESS');
    cardlink.bills.get(bill.id)!.status = 'FAIL';
    expect((await cardlink.postback(claims)).status).toBe(200);
    expect(await paymentRow(data.paymentId)).toMatchObject({ status: 'failed', applied: false });
    expect((await subscription(c)).tariffKey).toBe('free-plan');
  });

  it('replays (3 in a row, 10 at once) extend exactly once', async () => {
    const { c } = await customer();
    const { bill } = await checkout(c);
    const paid = cardlink.pay(bill.id);
    for (let i = 0; i < 3; i++) expect((await cardlink.postback(paid)).status).toBe(200);
    const once = (await subscription(c)).expiresAt;
    const burst = await Promise.all(Array.from({ length: 10 }, () => cardlink.postback(paid)));
    expect(burst.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect((await subscription(c)).expiresAt).toBe(once);
    expect(days(once)).toBe(30);
  });

  it('20 concurrent checkouts with one idempotency key make one bill; a later retry reuses it', async () => {
    const { c } = await customer();
    const before = cardlink.createdCount();
    const body = { tariffId: 3, currency: 'RUB', provider: 'cardlink', idempotencyKey: 'cardlink-same-key-1' };
    const results = await Promise.all(Array.from({ length: 20 }, () => c.post('/api/billing/createPayment', body)));
    expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    expect(new Set(results.map((r) => r.json().data.redirectUrl)).size).toBe(1);
    expect(cardlink.createdCount() - before).toBe(1);
    const again = await c.post('/api/billing/createPayment', body);
    expect(again.json().data.redirectUrl).toBe(results[0]!.json().data.redirectUrl);
    expect(cardlink.createdCount() - before).toBe(1);
  });

  it('getRestrictedCardlinkPaymentData takes an encrypted body on the proxy brand and answers encrypted', async () => {
    const { c, token } = await customer(`proxy.localhost:${port}`);
    const plain = await c.post(
      '/api/billing/getRestrictedCardlinkPaymentData',
      { tariffId: 2, currency: 'RUB', token },
      { auth: false },
    );
    expect(plain.statusCode).toBe(400);
    // With a bearer header: refused at the door on a restricted host (plugins/restricted-envelope.ts).
    expect(
      (await c.post('/api/billing/getRestrictedCardlinkPaymentData', { tariffId: 2, currency: 'RUB', token }))
        .statusCode,
    ).toBe(403);
    const res = await c.post(
      '/api/billing/getRestrictedCardlinkPaymentData',
      encryptText(PROXY_KEY, JSON.stringify({ tariffId: 2, currency: 'RUB', token })),
      {
        headers: { 'content-type': 'text/plain' },
        auth: false,
      },
    );
    expect(res.statusCode, res.body).toBe(200);
    const data = JSON.parse(decryptText(PROXY_KEY, res.body)!).data as {
      paymentId: string;
      provider: string;
      redirectUrl: string;
    };
    expect(data.provider).toBe('cardlink');
    const bill = [...cardlink.bills.values()].find((b) => b.order_id === data.paymentId)!;
    expect(data.redirectUrl).toBe(`${cardlink.url}/link/${bill.id}/page`);
    // Paid through the restricted flow: the postback still lands and the proxy customer is active.
    expect((await cardlink.postback(cardlink.pay(bill.id))).status).toBe(200);
    expect((await subscription(c)).tariffKey).toBe('1-month');
  });

  it('a Cardlink that refuses our token is a 503 for the customer, with nothing internal in it', async () => {
    // Same fake, wrong token: the provider maps the 401 to "unavailable" (the HTTP mapping of that error is asserted in the Payssion tests).
    const provider = cardlinkProvider({ apiToken: 'revoked-token', shopId: SHOP, apiUrl: cardlink.url }, t.app.db);
    const before = cardlink.createdCount();
    const err = await provider
      .create({
        merchantRef: 'pay_revoked',
        amountMinor: 99900,
        currency: 'RUB',
        description: '1 month',
        customerEmail: 'a@example.com',
        idempotencyKey: 'k',
        returnUrl: 'http://localhost/',
        notifyUrl: 'http://localhost/',
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderUnavailable);
    expect((err as ProviderUnavailable).status).toBe(503);
    expect((err as Error).message).not.toMatch(/token|401|Unauthenticated/i);
    expect(cardlink.createdCount()).toBe(before);
  });
});
