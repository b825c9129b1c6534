import { afterEach, describe, expect, it, vi } from 'vitest';
import { randomBytes } from 'node:crypto';
import { testUser } from '../test/fixtures';
import { stubApi } from '../test/http';
import { FALLBACK_BRAND, setBrand } from './brand';
import { createPayment } from './billing/create-payment';
import { decryptPayload, encryptPayload } from './restricted-crypto';
import { fetchUserInfo } from './session';
import { getToken, setToken } from './token';

const key = randomBytes(32).toString('base64');
const TOKEN = 'stored-bearer-token-0123456789abcdef';

interface Seen {
  path: string;
  contentType: string | null;
  authorization: string | null;
  text: string;
}

/** The API at the HTTP boundary: answers every call with `answer` sealed under the brand key. */
function stubRestrictedApi(answer: unknown, headers: Record<string, string> = {}): Seen[] {
  stubApi({}); // the page's Request (relative URLs), then this fetch
  const seen: Seen[] = [];
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(new URL(String(input), window.location.origin), init);
    seen.push({ path: new URL(request.url).pathname, contentType: request.headers.get('content-type'), authorization: request.headers.get('authorization'), text: await request.text() });
    return new Response(await encryptPayload(answer, key), { status: 200, headers: { 'content-type': 'text/plain', ...headers } });
  });
  return seen;
}

afterEach(() => {
  vi.unstubAllGlobals();
  setBrand(FALLBACK_BRAND);
  setToken(null);
});

describe('a restricted host', () => {
  const restricted = () => setBrand({ ...FALLBACK_BRAND, mainProduct: false, restrictedKey: key });
  const payment = { tariffId: 3, currency: 'USD', idempotencyKey: 'key-123456789', 'g-recaptcha-response': 'captcha-token' };
  const result = { data: { paymentId: 'p1', provider: 'stripe', amount: 5999, currency: 'USD', redirectUrl: 'https://pay.example/p1' } };

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
});
