import i18next from 'i18next';
import ky, { type KyInstance, type Options } from 'ky';
import { COOKIES, HTTP, XSRF_HEADER } from '@warren/contract';
import { getCookie } from './cookies';
import { getToken, setToken } from './token';
import { errorText, parseErrorBody, serverErrorText, type ApiError } from './http-error';
import { envelopeFetch } from './restricted-envelope';
import { snackbar } from './notify';

/**
 * Per-request switches, passed as ky's `context`:
 * - silent: the caller shows the error itself (no snackbar);
 * - skipAuthHandling: a 401 does not sign out (the logout call itself).
 */
export interface RequestContext {
  silent?: boolean;
  skipAuthHandling?: boolean;
}

type UnauthorizedHandler = () => void;
let onUnauthorized: UnauthorizedHandler = () => {};
export function setUnauthorizedHandler(handler: UnauthorizedHandler): void {
  onUnauthorized = handler;
}

/** Own-domain calls are the relative ones, i.e. those that resolve to our origin. */
export function isOwnOrigin(url: string, origin: string = window.location.origin): boolean {
  try {
    return new URL(url, origin).origin === origin;
  } catch {
    return false;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * How a client authenticates. The customer app sends its bearer token and signs out on a 401;
 * the staff console (features/staff) rides on its own HttpOnly cookie and must neither send the
 * customer's token (an operator may be signed in as a customer in the same browser) nor sign
 * that customer out when its own session ends.
 */
export interface ClientAuth {
  /** Send the stored customer token (default true). */
  bearer?: boolean;
  /** Called on a 401 instead of the customer sign-out. */
  onUnauthorized?: () => void;
}

export function createApiClient(options: Options = {}, auth: ClientAuth = {}): KyInstance {
  const bearer = auth.bearer ?? true;
  // The same fetch ky uses (tests pass their own): the one retry after a 419 goes through it. A
  // client that sends the session sends it, on a restricted host, inside the encrypted envelope.
  const plainFetch: typeof fetch = options.fetch ?? ((input, init) => fetch(input, init));
  const fetchOnce: typeof fetch = bearer ? envelopeFetch(plainFetch) : plainFetch;
  return ky.create({
    prefixUrl: '/api',
    retry: 0,
    timeout: 30_000,
    credentials: 'same-origin',
    ...options,
    fetch: fetchOnce,
    hooks: {
      beforeRequest: [
        (request) => {
          if (!isOwnOrigin(request.url)) return;
          const token = bearer ? getToken() : null;
          if (token && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${token}`);
          if (!SAFE_METHODS.has(request.method.toUpperCase())) {
            const xsrf = getCookie(COOKIES.xsrf);
            if (xsrf) request.headers.set(XSRF_HEADER, xsrf);
          }
        },
      ],
      afterResponse: [
        // The API answers 419 with a fresh XSRF cookie when the token it got was stale or issued
        // before the browser's key changed: send the same request once more with the new cookie.
        // Never twice (the retried request carries no retry), never to another origin.
        async (request, _options, response) => {
          if (
            response.status !== HTTP.xsrfMismatch ||
            SAFE_METHODS.has(request.method.toUpperCase()) ||
            !isOwnOrigin(request.url)
          )
            return;
          const fresh = getCookie(COOKIES.xsrf);
          if (!fresh || fresh === request.headers.get(XSRF_HEADER)) return;
          const again = new Request(request);
          again.headers.set(XSRF_HEADER, fresh);
          return fetchOnce(again);
        },
        (request, _options, response) => {
          if (!isOwnOrigin(request.url)) return;
          const header = response.headers.get('authorization');
          const match = header?.match(/^Bearer\s+(\S+)$/i);
          // Only rotate a token we hold: a login answer carries its token in the body.
          if (bearer && match?.[1] && getToken() && match[1] !== getToken()) setToken(match[1]);
        },
      ],
      beforeError: [
        async (error) => {
          const err = error as ApiError;
          const ctx = (err.options.context ?? {}) as RequestContext;
          const status = err.response.status;
          let raw: unknown = null;
          try {
            raw = await err.response.clone().json();
          } catch {
            raw = null;
          }
          err.body = parseErrorBody(raw) ?? undefined;
          if (err.body) err.message = errorText(err.body, err.message);
          const ownHandler = auth.onUnauthorized;
          if (status === HTTP.unauthorized && !ctx.skipAuthHandling) {
            if (ownHandler) ownHandler();
            else if (getToken()) onUnauthorized();
          }
          // A client with its own 401 handling says what happened where it lands (no snackbar too).
          const silent =
            ctx.silent ||
            status === HTTP.locked ||
            status === HTTP.validation ||
            (status === HTTP.unauthorized && !!ownHandler && !ctx.skipAuthHandling);
          if (!silent)
            snackbar(
              serverErrorText(status) ??
                errorText(err.body, err.response.statusText || i18next.t('notify.serverError')),
            );
          return err;
        },
      ],
    },
  });
}

export const api = createApiClient();
