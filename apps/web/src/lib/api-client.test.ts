import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('./notify', () => ({ snackbar: vi.fn() }));

import { createApiClient, isOwnOrigin, setUnauthorizedHandler } from './api-client';
import { snackbar } from './notify';
import { getToken, setToken } from './token';
import { errorBodyOf } from './http-error';
import i18next from 'i18next';
import en from '../../public/assets/i18n/en.json';
import ru from '../../public/assets/i18n/ru.json';

const origin = window.location.origin;

function reply(status: number, body: unknown, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

function client(responder: (req: Request) => Response) {
  const seen: Request[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = input instanceof Request ? input : new Request(input, init);
    seen.push(req);
    return responder(req);
  });
  return { api: createApiClient({ prefixUrl: `${origin}/api`, fetch: fetchMock as typeof fetch }), seen };
}

beforeEach(() => {
  localStorage.clear();
  document.cookie = 'XSRF-TOKEN=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/';
  vi.mocked(snackbar).mockClear();
});
afterEach(() => setUnauthorizedHandler(() => {}));

describe('api client', () => {
  it('adds the bearer token on own-domain calls', async () => {
    setToken('tok-1');
    const { api, seen } = client(() => reply(200, { data: 1 }));
    await api.get('users/info/get').json();
    expect(seen[0]!.headers.get('authorization')).toBe('Bearer tok-1');
  });

  it('never sends the token to another origin', async () => {
    setToken('tok-1');
    const { api, seen } = client(() => reply(200, { data: 1 }));
    await api.get('https://elsewhere.example/x', { prefixUrl: '' }).json();
    expect(seen[0]!.headers.get('authorization')).toBeNull();
  });

  it('sends X-XSRF-TOKEN from the cookie on non-GET calls only', async () => {
    document.cookie = `XSRF-TOKEN=${encodeURIComponent('a+b/c=')}; path=/`;
    const { api, seen } = client(() => reply(200, { data: 1 }));
    await api.post('users/logout').json();
    await api.get('users/info/get').json();
    expect(seen[0]!.headers.get('x-xsrf-token')).toBe('a+b/c=');
    expect(seen[1]!.headers.get('x-xsrf-token')).toBeNull();
  });

  it('retries a state-changing call once after a 419, with the fresh XSRF cookie and the same body', async () => {
    document.cookie = 'XSRF-TOKEN=old-token; path=/';
    const sent: { token: string | null; body: string }[] = [];
    const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = input instanceof Request ? input : new Request(input, init);
      sent.push({ token: req.headers.get('x-xsrf-token'), body: await req.text() });
      if (req.headers.get('x-xsrf-token') === 'old-token') {
        // What the API does: a 419 carries a fresh cookie.
        document.cookie = 'XSRF-TOKEN=new-token; path=/';
        return reply(419, { message: 'The page has expired. Please refresh and try again.' });
      }
      return reply(200, { data: 'ok' });
    });
    const api = createApiClient({ prefixUrl: `${origin}/api`, fetch: fetchMock as typeof fetch });
    expect(await api.post('profile/update', { json: { firstName: 'Ann' } }).json()).toEqual({ data: 'ok' });
    expect(sent).toEqual([
      { token: 'old-token', body: '{"firstName":"Ann"}' },
      { token: 'new-token', body: '{"firstName":"Ann"}' },
    ]);
    expect(snackbar).not.toHaveBeenCalled();
  });

  it('retries at most once, and not when the cookie did not change', async () => {
    document.cookie = 'XSRF-TOKEN=t1; path=/';
    let n = 0;
    const always = client(() => {
      document.cookie = `XSRF-TOKEN=t${(n += 1) + 1}; path=/`;
      return reply(419, { message: 'expired' });
    });
    await expect(always.api.post('users/logout').json()).rejects.toMatchObject({ response: { status: 419 } });
    expect(always.seen).toHaveLength(2);

    document.cookie = 'XSRF-TOKEN=same; path=/';
    const unchanged = client(() => reply(419, { message: 'expired' }));
    await expect(unchanged.api.post('users/logout').json()).rejects.toMatchObject({ response: { status: 419 } });
    expect(unchanged.seen).toHaveLength(1);
  });

  it('replaces the stored token when the answer carries a new one', async () => {
    setToken('old');
    const { api } = client(() => reply(200, { data: 1 }, { authorization: 'Bearer new-token' }));
    await api.get('users/info/get').json();
    expect(getToken()).toBe('new-token');
  });

  it('shows field errors joined (or the message) for HTTP errors, 3 s', async () => {
    const { api } = client(() => reply(409, { message: 'Conflict.', errors: { a: ['First.'], b: ['Second.'] } }));
    const err = await api
      .post('x')
      .json()
      .catch((e: unknown) => e);
    expect(errorBodyOf(err)?.message).toBe('Conflict.');
    expect(snackbar).toHaveBeenCalledWith('First. Second.');
  });

  it("says a server error in the customer's language, not the API's English (503: briefly unavailable)", async () => {
    await i18next.init({ lng: 'ru', resources: { en: { translation: en }, ru: { translation: ru } } });
    const { api } = client((req) =>
      req.url.endsWith('/down')
        ? reply(
            503,
            { message: 'The service is briefly unavailable. Please try again in a few seconds.' },
            { 'retry-after': '5' },
          )
        : reply(500, { message: 'Internal Server Error' }),
    );
    await api
      .get('down')
      .json()
      .catch(() => undefined);
    expect(snackbar).toHaveBeenLastCalledWith(ru.notify.unavailable);
    await api
      .get('broken')
      .json()
      .catch(() => undefined);
    expect(snackbar).toHaveBeenLastCalledWith(ru.notify.serverError);
    await i18next.changeLanguage('en');
    await api
      .get('down')
      .json()
      .catch(() => undefined);
    expect(snackbar).toHaveBeenLastCalledWith(en.notify.unavailable);
  });

  it('is silent for 423 and 422 (the form shows 422 under its fields)', async () => {
    const { api } = client((req) =>
      req.url.endsWith('/locked')
        ? reply(423, { message: 'Locked.' })
        : reply(422, { message: 'Invalid.', errors: { email: ['Bad.'] } }),
    );
    await api
      .get('locked')
      .json()
      .catch(() => undefined);
    const err = await api
      .post('form')
      .json()
      .catch((e: unknown) => e);
    expect(snackbar).not.toHaveBeenCalled();
    expect(errorBodyOf(err)?.errors?.email).toEqual(['Bad.']);
  });

  it('signs out on 401 when logged in, unless told not to', async () => {
    const onUnauthorized = vi.fn();
    setUnauthorizedHandler(onUnauthorized);
    setToken('tok');
    const { api } = client(() => reply(401, { message: 'Unauthenticated.' }));
    await api
      .get('users/info/get')
      .json()
      .catch(() => undefined);
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
    await api
      .post('users/logout', { context: { skipAuthHandling: true, silent: true } })
      .json()
      .catch(() => undefined);
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
  });

  it('a client without the bearer (the staff console) never sends the customer token and never signs the customer out', async () => {
    const customerSignOut = vi.fn();
    const own = vi.fn();
    setUnauthorizedHandler(customerSignOut);
    setToken('customer-tok');
    document.cookie = 'XSRF-TOKEN=x1; path=/';
    const seen: Request[] = [];
    const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = input instanceof Request ? input : new Request(input, init);
      seen.push(req);
      return reply(401, { message: 'Unauthenticated.' }, { authorization: 'Bearer rotated' });
    });
    const staff = createApiClient(
      { prefixUrl: `${origin}/api/staff`, fetch: fetchMock as typeof fetch },
      { bearer: false, onUnauthorized: own },
    );
    await staff
      .post('customers/1/grant', { json: {} })
      .json()
      .catch(() => undefined);
    expect(seen[0]!.headers.get('authorization')).toBeNull();
    expect(seen[0]!.headers.get('x-xsrf-token')).toBe('x1');
    expect(own).toHaveBeenCalledTimes(1);
    expect(customerSignOut).not.toHaveBeenCalled();
    expect(getToken()).toBe('customer-tok');
    expect(snackbar).not.toHaveBeenCalled();
  });
});

describe('isOwnOrigin', () => {
  it.each([
    ['/api/users', true],
    [`${origin}/api/users`, true],
    ['https://evil.example/api', false],
    ['//evil.example/api', false],
  ])('%s → %s', (url, expected) => {
    expect(isOwnOrigin(url, origin)).toBe(expected);
  });
});
