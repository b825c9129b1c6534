import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { TestClient, registerUser } from '../../apps/api/test/helpers.js';

/**
 * A customer who registers and buys the 1-year plan through the API, as every tunnel test needs one:
 * the sandbox provider's hosted page (Pay), then its signed webhook.
 */
export async function payingUser(app: FastifyInstance): Promise<TestClient> {
  const user = new TestClient(app);
  await registerUser(user);
  const pay = await user.post('/api/billing/createPayment', {
    tariffId: 3,
    currency: 'USD',
    provider: 'sandbox',
    returnPath: '/thank-you',
  });
  expect(pay.statusCode, pay.body).toBe(200);
  const sandboxId = new URL(pay.json().data.redirectUrl as string).pathname.split('/').pop()!;
  const done = await app.inject({
    method: 'POST',
    url: `/sandbox/checkout/${sandboxId}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'outcome=pay',
  });
  expect(done.statusCode).toBeLessThan(400);
  return user;
}
