import {
  COOKIES,
  ENVELOPE_METHODS,
  ENVELOPE_REQUEST_HEADERS,
  HTTP,
  RESTRICTED_PATHS,
  XSRF_HEADER,
  type RestrictedEnvelope,
  type RestrictedEnvelopeAnswer,
} from '@warren/contract';
import { getBrand } from './brand';
import { getCookie } from './cookies';
import { decryptPayload, encryptPayload, fromBase64 } from './restricted-crypto';

/**
 * Whether this host is a restricted one (spec section 6; README: Restricted hosts): its calls that
 * carry personal or payment data go encrypted, and the API refuses their plain versions there.
 */
export function usesRestrictedCalls(): boolean {
  const brand = getBrand();
  return !brand.mainProduct && !!brand.restrictedKey;
}

export const ENVELOPE_URL = `/api/${RESTRICTED_PATHS.envelope}`;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Statuses whose answer has no body (a Response with one cannot be made). */
const NO_BODY = new Set([101, 204, 205, 304]);
const methods: ReadonlySet<string> = new Set(ENVELOPE_METHODS);

/**
 * The api client's fetch on a restricted host: an own-origin `/api/` call that carries the session
 * (the bearer header the client adds) leaves as the envelope instead, one encrypted body
 * `{ token, method, path, query, body, headers }` posted to `/api/restrictedCall` with no bearer
 * header; its sealed answer is opened back into the call's own Response (status, headers, body),
 * with a rotated token in that Response's Authorization header, where the client already looks
 * for one. So every signed-in call of the web app, those of tomorrow too, is encrypted there
 * without a change in its own file. Calls without a session, other origins and main-product hosts
 * pass through untouched.
 */
export function envelopeFetch(fetchFn: typeof fetch): typeof fetch {
  return async (input, init) => {
    const key = getBrand().restrictedKey;
    // A main-product host: the call as it is.
    if (!key || !usesRestrictedCalls()) return fetchFn(input, init);
    const request = new Request(input, init);
    const token = /^Bearer\s+(\S+)$/i.exec(request.headers.get('authorization') ?? '')?.[1];
    const url = new URL(request.url);
    if (!token || url.origin !== window.location.origin || !url.pathname.startsWith('/api/')) return fetchFn(request);
    const method = request.method.toUpperCase();
    // Never sent in the clear instead: a call the envelope cannot carry fails here.
    if (!methods.has(method)) throw new TypeError(`${method} cannot be sent on this host.`);
    const text = SAFE_METHODS.has(method) ? '' : await request.text();
    const headers: Record<string, string> = {};
    for (const name of ENVELOPE_REQUEST_HEADERS) {
      const value = request.headers.get(name);
      if (value) headers[name] = value;
    }
    const call: RestrictedEnvelope = {
      token,
      method: method as RestrictedEnvelope['method'],
      path: url.pathname,
      ...(url.search.length > 1 ? { query: url.search.slice(1) } : {}),
      ...(text ? { body: JSON.parse(text) as unknown } : {}),
      ...(Object.keys(headers).length ? { headers } : {}),
    };
    const sealed = await encryptPayload(call, key);
    const send = (xsrf: string | null) => {
      const outer = new Headers({ 'content-type': 'text/plain' });
      if (xsrf) outer.set(XSRF_HEADER, xsrf);
      return fetchFn(
        new Request(new URL(ENVELOPE_URL, url.origin), {
          method: 'POST',
          body: sealed,
          headers: outer,
          credentials: request.credentials,
          signal: request.signal,
        }),
      );
    };
    const xsrf = getCookie(COOKIES.xsrf);
    let res = await send(xsrf);
    // The envelope is a POST even for a read: the api client retries a 419 only for state-changing
    // calls (with their own body), so a read's envelope is sent once more here with the fresh cookie.
    if (res.status === HTTP.xsrfMismatch && SAFE_METHODS.has(method)) {
      const fresh = getCookie(COOKIES.xsrf);
      if (fresh && fresh !== xsrf) res = await send(fresh);
    }
    // The envelope's own refusals (garbage, a path it does not carry, a stale XSRF token) are plain JSON errors.
    if (res.status !== 200 || !/^text\/plain/i.test(res.headers.get('content-type') ?? '')) return res;
    const answer = await decryptPayload<RestrictedEnvelopeAnswer>(await res.text(), key);
    const answerHeaders = new Headers(answer.headers as Record<string, string>);
    if (answer.rotatedToken) answerHeaders.set('authorization', `Bearer ${answer.rotatedToken}`);
    const body = NO_BODY.has(answer.status)
      ? null
      : answer.bodyBase64 !== undefined
        ? fromBase64(answer.bodyBase64)
        : (answer.body ?? '');
    return new Response(body, { status: answer.status, headers: answerHeaders });
  };
}
