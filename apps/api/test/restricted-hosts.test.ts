import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptText, encryptText } from '../src/lib/secrets.js';
import { PASSWORD, TestClient, createTestApp, linkParams, mailTo, registerUser, uniqueEmail, type TestApp } from './helpers.js';

/**
 * A restricted host (a brand with mainProduct false, config/brands.json's proxy brand) sends
 * every call that carries personal or payment data encrypted under the brand key, and the API
 * refuses their plain JSON there: the web app cannot fall back to the clear calls by mistake.
 */
const PROXY = 'proxy.localhost';
const KEY = 'q0Hn7QmZ0nS2b1uV7H3cJm0a9w8E5r2T1y4U6i8O0pA='; // config/brands.json, brand warren-proxy
const sealed = (payload: unknown) => encryptText(KEY, JSON.stringify(payload));
const TEXT = { 'content-type': 'text/plain' };

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ JOBS: 'false' });
});
afterAll(async () => {
  await t?.close();
});

describe('restricted hosts', () => {
  it('refuse the plain calls that carry a password, a session or a payment (403), and the main host keeps them', async () => {
    const proxy = new TestClient(t.app, { host: PROXY });
    const { user } = await registerUser(proxy);
    const pay = { tariffId: 3, currency: 'USD', provider: 'sandbox' };
    const plain: [string, string, unknown?][] = [
      ['GET', '/api/users/info/get'],
      ['POST', '/api/users/resetPassword', { userId: 1, token: 'x'.repeat(40), password: PASSWORD, password_confirmation: PASSWORD }],
      ['POST', '/api/billing/createPayment', pay],
      ['GET', '/api/billing/getStripePayment?tariffId=3&currency=USD'],
      ['POST', '/api/billing/getPayssionPaymentData', { tariffId: 3, currency: 'USD' }],
      ['POST', '/api/billing/getPayssionV2MandateOrDoPayment', { tariffId: 3, currency: 'USD' }],
    ];
    for (const [method, url, payload] of plain) {
      const res = await proxy.request({ method: method as 'GET' | 'POST', url, payload: payload as object | undefined });
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(403);
      expect(res.json().message).toBe('This host accepts only the encrypted calls.');
    }
    // Nothing was bought through a refused call.
    expect((await t.app.db.query<{ n: number }>('select count(*)::int as n from payments where user_id = $1', [user.id]))[0]!.n).toBe(0);
    // The same calls on the main host are as before.
    const main = new TestClient(t.app);
    await registerUser(main);
    expect((await main.get('/api/users/info/get')).statusCode).toBe(200);
    expect((await main.post('/api/billing/createPayment', pay)).statusCode).toBe(200);
  });

  it('restrictedUserCheck and restrictedCreatePayment take the token inside the encrypted body and answer encrypted', async () => {
    const proxy = new TestClient(t.app, { host: PROXY });
    const { token, user } = await registerUser(proxy);
    const bare = new TestClient(t.app, { host: PROXY }); // no bearer header anywhere
    const check = await bare.post('/api/users/restrictedUserCheck', sealed({ token }), { headers: TEXT });
    expect(check.statusCode, check.body).toBe(200);
    expect(check.body).not.toContain(user.email);
    expect(JSON.parse(decryptText(KEY, check.body)!).data.user.email).toBe(user.email);
    // A made-up token: 401, like any signed-out call.
    expect((await bare.post('/api/users/restrictedUserCheck', sealed({ token: 'y'.repeat(43) }), { headers: TEXT })).statusCode).toBe(401);

    const res = await bare.post('/api/billing/restrictedCreatePayment', sealed({ tariffId: 3, currency: 'USD', provider: 'sandbox', token, idempotencyKey: 'restricted-key-1' }), { headers: TEXT });
    expect(res.statusCode, res.body).toBe(200);
    const data = JSON.parse(decryptText(KEY, res.body)!).data as { paymentId: string; provider: string; redirectUrl: string };
    expect(data).toMatchObject({ provider: 'sandbox', paymentId: expect.any(String) });
    // The same attempt again is the same payment (the idempotency key travels inside the body).
    const again = await bare.post('/api/billing/restrictedCreatePayment', sealed({ tariffId: 3, currency: 'USD', provider: 'sandbox', token, idempotencyKey: 'restricted-key-1' }), { headers: TEXT });
    expect(JSON.parse(decryptText(KEY, again.body)!).data.paymentId).toBe(data.paymentId);
    // Plain JSON, no token, or a wrong provider: refused, never a 5xx.
    expect((await proxy.post('/api/billing/restrictedCreatePayment', { tariffId: 3, currency: 'USD', provider: 'sandbox' })).statusCode).toBe(400);
    expect((await bare.post('/api/billing/restrictedCreatePayment', sealed({ tariffId: 3, currency: 'USD', provider: 'sandbox' }), { headers: TEXT })).statusCode).toBe(401);
    expect((await bare.post('/api/billing/restrictedCreatePayment', sealed({ tariffId: 3, currency: 'USD', provider: 'bitcoin', token }), { headers: TEXT })).statusCode).toBe(422);
    // Another brand's host has no key for it.
    expect((await new TestClient(t.app).post('/api/billing/restrictedCreatePayment', sealed({ tariffId: 3, currency: 'USD', provider: 'sandbox', token }), { headers: TEXT })).statusCode).toBe(400);
  });

  it('restrictedResetPassword sets the new password from the emailed link; the link works once', async () => {
    const proxy = new TestClient(t.app, { host: PROXY });
    const email = uniqueEmail('proxy-reset');
    await registerUser(proxy, email);
    expect((await proxy.post('/api/users/restrictedRequestResetPassword', sealed({ email }), { headers: TEXT })).statusCode).toBe(200);
    const mail = (await mailTo(proxy, t.app, email)).find((m) => m.text.includes('/reset-password?'))!;
    const link = linkParams(mail.text, '/reset-password');
    const body = { userId: link.userId, token: link.token, password: 'a brand new password', password_confirmation: 'a brand new password' };
    const res = await proxy.post('/api/users/restrictedResetPassword', sealed(body), { headers: TEXT });
    expect(res.statusCode, res.body).toBe(200);
    expect(JSON.parse(decryptText(KEY, res.body)!).message).toBe('Password updated successfully');
    expect((await proxy.post('/api/users/restrictedResetPassword', sealed(body), { headers: TEXT })).statusCode).toBe(422);
    const login = await proxy.post('/api/users/restrictedLogin', sealed({ email, password: 'a brand new password' }), { headers: TEXT });
    expect(login.statusCode, login.body).toBe(200);
  });
});
