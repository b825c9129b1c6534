import { afterEach, describe, expect, it, vi } from 'vitest';
import { testUser } from '../test/fixtures';
import { stubApi } from '../test/http';
import { FALLBACK_BRAND, setBrand } from './brand';
import { createPayment } from './billing/create-payment';
import { decryptPayload } from './restricted-crypto';
import { fetchUserInfo } from './session';
import { login, register, verifyUser } from './account-api';
import { restrictedPost } from './restricted-call';
import { RESTRICTED_KEY, STORED_TOKEN, expectRestrictedCall, stubRestrictedApi } from '../test/restricted';
import { getToken, setToken } from './token';

const key = RESTRICTED_KEY;
const TOKEN = STORED_TOKEN;

afterEach(() => {
  vi.unstubAllGlobals();
  setBrand(FALLBACK_BRAND);
  setToken(null);
});

describe('a restricted host', () => {
  const restricted = () => setBrand({ ...FALLBACK_BRAND, mainProduct: false, restrictedKey: key });
  const payment = {
    tariffId: 3,
    currency: 'USD',
    idempotencyKey: 'key-123456789',
    'g-recaptcha-response': 'captcha-token',
  };
  const result = {
    data: { paymentId: 'p1', provider: 'stripe', amount: 5999, currency: 'USD', redirectUrl: 'https://pay.example/p1' },
  };

  it("pays through the spec's call for the provider, or restrictedCreatePayment: encrypted, the token inside, no bearer header", async () => {
    restricted();
    setToken(TOKEN);
    for (const [provider, path] of [
      ['stripe', '/api/billing/getRestrictedStripePayment'],
      ['payssion', '/api/billing/getRestrictedPayssionPaymentData'],
      ['cardlink', '/api/billing/getRestrictedCardlinkPaymentData'],
      ['sandbox', '/api/billing/restrictedCreatePayment'],
      ['payssionv2', '/api/billing/restrictedCreatePayment'],
    ] as const) {
      const seen = stubRestrictedApi(result);
      expect(await createPayment({ ...payment, provider })).toMatchObject({ paymentId: 'p1' });
      expect(seen).toHaveLength(1);
      const [call] = seen;
      expect(call).toMatchObject({ path, contentType: 'text/plain', authorization: null });
      for (const clear of [TOKEN, 'captcha-token', 'tariffId', provider]) expect(call!.text).not.toContain(clear);
      const body = await decryptPayload<Record<string, unknown>>(call!.text, key);
      expect(body).toMatchObject({ ...payment, token: TOKEN });
      if (path.endsWith('restrictedCreatePayment')) expect(body.provider).toBe(provider);
    }
  });

  it('checks the session with restrictedUserCheck and keeps a rotated token', async () => {
    restricted();
    setToken(TOKEN);
    const user = testUser({ email: 'ann@example.com' });
    const seen = stubRestrictedApi({ data: { user, token: 'rotated-token-abcdefghijklmnopqrstuvwxyz' } });
    expect(await fetchUserInfo()).toEqual(user);
    expect(seen.map((s) => [s.path, s.authorization])).toEqual([['/api/users/restrictedUserCheck', null]]);
    expect(await decryptPayload(seen[0]!.text, key)).toEqual({ token: TOKEN });
    expect(getToken()).toBe('rotated-token-abcdefghijklmnopqrstuvwxyz');
  });

  it('verifyUser goes encrypted: the link token inside, the user (its email) back encrypted', async () => {
    await expectRestrictedCall(() => verifyUser({ userId: 7, token: 'link-token-abcdefghijklmnop' }), {
      path: '/api/users/restrictedVerifyUser',
      answer: { data: { user: testUser({ email: 'ann@example.com' }) } },
      inside: { userId: 7, token: 'link-token-abcdefghijklmnop' },
      sessionField: null,
      clear: ['link-token-abcdefghijklmnop'],
    });
  });

  it("sign-in and both sign-ups (the page's, the checkout's one-step) go encrypted, the password inside", async () => {
    const answer = {
      data: { user: testUser({ email: 'ann@example.com' }), token: 'new-token-abcdefghijklmnopqrstuvwxyz' },
    };
    const body = {
      email: 'ann@example.com',
      password: 'secret-password-1',
      password_confirmation: 'secret-password-1',
    };
    await expectRestrictedCall(() => login({ email: body.email, password: body.password }), {
      path: '/api/users/restrictedLogin',
      answer,
      inside: { email: body.email, password: body.password },
      sessionField: null,
      clear: ['secret-password-1', 'ann@example.com'],
    });
    await expectRestrictedCall(() => register(body), {
      path: '/api/users/restrictedRegister',
      answer,
      inside: { ...body, isRestrictedDomain: true },
      sessionField: null,
      clear: ['secret-password-1'],
    });
    await expectRestrictedCall(() => register(body, { oneStep: true }), {
      path: '/api/users/restrictedRegister',
      answer,
      inside: { ...body, isRestrictedDomain: true, isOneStepPayment: true },
      sessionField: null,
      clear: ['secret-password-1'],
    });
  });

  it('a rotated token comes back inside the encrypted answer and replaces the stored one', async () => {
    restricted();
    setToken(TOKEN);
    stubRestrictedApi({ data: { paymentId: 'p1' }, rotatedToken: 'rotated-token-abcdefghijklmnopqrstuvwxyz' });
    await restrictedPost('billing/restrictedCreatePayment', { tariffId: 3 }, {}, { withToken: true });
    expect(getToken()).toBe('rotated-token-abcdefghijklmnopqrstuvwxyz');
  });

  it('a main-product host keeps the plain calls', async () => {
    setToken(TOKEN);
    stubApi({});
    const seen: string[] = [];
    vi.stubGlobal('fetch', async (input: RequestInfo | URL) => {
      seen.push(new URL((input as Request).url).pathname);
      return new Response(JSON.stringify(result), { status: 200, headers: { 'content-type': 'application/json' } });
    });
    await createPayment({ ...payment, provider: 'sandbox' });
    expect(seen).toEqual(['/api/billing/createPayment']);
  });

  it('a main-product host signs up in plain JSON; only the checkout marks isOneStepPayment', async () => {
    stubApi({});
    const sent: [string, Record<string, unknown>][] = [];
    vi.stubGlobal('fetch', async (input: RequestInfo | URL) => {
      const request = input as Request;
      sent.push([new URL(request.url).pathname, await request.json()]);
      return new Response(
        JSON.stringify({ data: { user: testUser(), token: 'new-token-abcdefghijklmnopqrstuvwxyz' } }),
        { status: 200, headers: { 'content-type': 'application/json' } },
      );
    });
    const body = {
      email: 'ann@example.com',
      password: 'secret-password-1',
      password_confirmation: 'secret-password-1',
    };
    await register(body);
    await register(body, { oneStep: true });
    expect(sent).toEqual([
      ['/api/users/register', body],
      ['/api/users/register', { ...body, isOneStepPayment: true }],
    ]);
  });
});
