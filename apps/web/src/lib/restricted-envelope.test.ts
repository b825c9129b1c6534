import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('./notify', () => ({ snackbar: vi.fn() }));

import type { RestrictedEnvelope, RestrictedEnvelopeAnswer } from '@warren/contract';
import { createApiClient, setUnauthorizedHandler } from './api-client';
import { FALLBACK_BRAND, setBrand } from './brand';
import { errorBodyOf } from './http-error';
import { decryptPayload, encryptPayload } from './restricted-crypto';
import { getToken, setToken } from './token';
import { RESTRICTED_KEY, STORED_TOKEN, onRestrictedHost } from '../test/restricted';

const origin = window.location.origin;

interface Sent {
  url: string;
  method: string;
  contentType: string | null;
  authorization: string | null;
  xsrf: string | null;
  text: string;
}

/** The API at the HTTP boundary: opens each envelope, lets `inner` answer the call inside, seals that answer. */
function api(
  inner: (call: RestrictedEnvelope) => RestrictedEnvelopeAnswer | Response,
  options: { bearer?: boolean } = {},
) {
  const sent: Sent[] = [];
  const calls: RestrictedEnvelope[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = input instanceof Request ? input : new Request(input, init);
    const text = await req.text();
    sent.push({
      url: req.url,
      method: req.method,
      contentType: req.headers.get('content-type'),
      authorization: req.headers.get('authorization'),
      xsrf: req.headers.get('x-xsrf-token'),
      text,
    });
    if (new URL(req.url).pathname !== '/api/restrictedCall')
      return new Response(JSON.stringify({ data: 'plain' }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    const call = await decryptPayload<RestrictedEnvelope>(text, RESTRICTED_KEY);
    calls.push(call);
    const answer = inner(call);
    if (answer instanceof Response) return answer;
    return new Response(await encryptPayload(answer, RESTRICTED_KEY), {
      status: 200,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
  });
  return {
    client: createApiClient(
      { prefixUrl: `${origin}/api`, fetch: fetchMock as typeof fetch },
      { bearer: options.bearer ?? true },
    ),
    sent,
    calls,
  };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): RestrictedEnvelopeAnswer => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  body: JSON.stringify(body),
});

beforeEach(() => {
  localStorage.clear();
  document.cookie = 'XSRF-TOKEN=xsrf-1; path=/';
});
afterEach(() => {
  setBrand(FALLBACK_BRAND);
  setToken(null);
  setUnauthorizedHandler(() => {});
});

describe('the envelope on a restricted host', () => {
  it('a signed-in read leaves as one encrypted POST to restrictedCall: no bearer header, the token, path and query inside', async () => {
    onRestrictedHost();
    const { client, sent, calls } = api(() => json(200, { data: { items: [{ amountMinor: 1299 }] } }));
    expect(await client.get('billing/payments', { searchParams: { page: 2 } }).json()).toEqual({
      data: { items: [{ amountMinor: 1299 }] },
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      url: `${origin}/api/restrictedCall`,
      method: 'POST',
      contentType: 'text/plain',
      authorization: null,
      xsrf: 'xsrf-1',
    });
    for (const clear of [STORED_TOKEN, 'billing', 'payments', 'page']) expect(sent[0]!.text).not.toContain(clear);
    expect(calls).toEqual([{ token: STORED_TOKEN, method: 'GET', path: '/api/billing/payments', query: 'page=2' }]);
  });

  it('a state-changing call carries its JSON body and its idempotency key inside', async () => {
    onRestrictedHost();
    const { client, sent, calls } = api(() => json(201, { data: { device: { id: 7 } } }));
    const body = { name: 'Laptop', publicKey: 'k'.repeat(44) };
    expect(
      await client.post('setup/wg/devices/add', { json: body, headers: { 'idempotency-key': 'idem-1' } }).json(),
    ).toEqual({ data: { device: { id: 7 } } });
    expect(calls).toEqual([
      {
        token: STORED_TOKEN,
        method: 'POST',
        path: '/api/setup/wg/devices/add',
        body,
        headers: { 'idempotency-key': 'idem-1' },
      },
    ]);
    expect(sent[0]!.text).not.toContain('Laptop');
    // A body-less POST (sign-out) carries no body field.
    await client.post('users/logout').json();
    expect(calls[1]).toEqual({ token: STORED_TOKEN, method: 'POST', path: '/api/users/logout' });
  });

  it("the call's own errors come back as from a direct call: field messages, and a 401 signs out", async () => {
    onRestrictedHost();
    const signOut = vi.fn();
    setUnauthorizedHandler(signOut);
    const { client } = api((call) =>
      call.path.endsWith('rename')
        ? json(422, { message: 'Bad name.', errors: { name: ['Bad name.'] } })
        : json(401, { message: 'Unauthenticated.' }),
    );
    const err = await client
      .post('setup/wg/devices/rename', { json: { id: 1, name: '' } })
      .json()
      .catch((e: unknown) => e);
    expect(errorBodyOf(err)?.errors?.name).toEqual(['Bad name.']);
    await client
      .get('rewards')
      .json()
      .catch(() => undefined);
    expect(signOut).toHaveBeenCalledTimes(1);
  });

  it('keeps a rotated token from inside the sealed answer', async () => {
    onRestrictedHost();
    const { client } = api(() => ({ ...json(200, { data: 1 }), rotatedToken: 'rotated-token-0123456789abcdef' }));
    await client.get('rewards').json();
    expect(getToken()).toBe('rotated-token-0123456789abcdef');
  });

  it('a binary answer (a receipt) arrives as its bytes with its headers', async () => {
    onRestrictedHost();
    const bytes = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x00, 0xff, 0x80]);
    const { client } = api(() => ({
      status: 200,
      headers: {
        'content-type': 'application/pdf',
        'content-disposition': 'attachment; filename="receipt-WRN-000001.pdf"',
      },
      bodyBase64: btoa(String.fromCharCode(...bytes)),
    }));
    const res = await client.get('billing/payments/p1/receipt');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="receipt-WRN-000001.pdf"');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
  });

  it("a read's envelope refused for a stale XSRF token (419) is sent once more with the fresh cookie", async () => {
    onRestrictedHost();
    let first = true;
    const { client, sent } = api(() => {
      if (!first) return json(200, { data: 'ok' });
      first = false;
      document.cookie = 'XSRF-TOKEN=xsrf-2; path=/';
      return new Response(JSON.stringify({ message: 'The page has expired. Please refresh and try again.' }), {
        status: 419,
        headers: { 'content-type': 'application/json' },
      });
    });
    expect(await client.get('rewards').json()).toEqual({ data: 'ok' });
    expect(sent.map((s) => s.xsrf)).toEqual(['xsrf-1', 'xsrf-2']);
  });

  it("the envelope's own refusal (plain JSON) reaches the caller as it is", async () => {
    onRestrictedHost();
    const { client } = api(
      () =>
        new Response(JSON.stringify({ message: 'This call cannot be made through the encrypted envelope.' }), {
          status: 404,
          headers: { 'content-type': 'application/json' },
        }),
    );
    const err = await client
      .get('rewards')
      .json()
      .catch((e: unknown) => e);
    expect(errorBodyOf(err)?.message).toBe('This call cannot be made through the encrypted envelope.');
  });
});

describe('without the envelope', () => {
  it('a main-product host sends the plain call with its bearer header', async () => {
    setToken(STORED_TOKEN);
    const { client, sent } = api(() => json(200, {}));
    await client.get('rewards').json();
    expect(sent.map((s) => [s.url, s.authorization])).toEqual([[`${origin}/api/rewards`, `Bearer ${STORED_TOKEN}`]]);
  });

  it('a restricted host without a session, and a client that sends no session, call directly', async () => {
    onRestrictedHost();
    setToken(null);
    const { client, sent } = api(() => json(200, {}));
    await client.get('billing/getPlanInfo').json();
    onRestrictedHost();
    const staff = api(() => json(200, {}), { bearer: false });
    await staff.client.get('staff/me').json();
    expect([...sent, ...staff.sent].map((s) => [new URL(s.url).pathname, s.authorization])).toEqual([
      ['/api/billing/getPlanInfo', null],
      ['/api/staff/me', null],
    ]);
  });
});
