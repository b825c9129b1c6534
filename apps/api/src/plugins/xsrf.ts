import fastifyCsrf from '@fastify/csrf-protection';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { COOKIES, XSRF_HEADER } from '@warren/contract';
import { DomainError } from '../lib/errors.js';
import { hmac } from '../lib/secrets.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The state-changing routes that take no XSRF token, each with the reason: their callers are
 * machines that never hold our cookies, and they authenticate otherwise. Keyed by the route as
 * registered (method and path pattern), never by the URL as spelled. Every other state-changing
 * route is checked, including routes added later; test/xsrf.test.ts pins this list.
 */
export const XSRF_EXEMPT: ReadonlyMap<string, string> = new Map([
  [
    'POST /api/nodes/report',
    'VPN agents authenticate with a node token in the Authorization header; no browser sends it',
  ],
  [
    'POST /api/billing/webhooks/:provider',
    'payment providers call it server-to-server; each notification is verified by its signature or re-read from the provider',
  ],
  [
    'POST /unsubscribe',
    'RFC 8058 one-click unsubscribe: mail providers POST it without cookies; the link carries an HMAC of the user id',
  ],
  [
    'POST /sandbox/checkout/:id',
    "the sandbox stands in for a provider's hosted page (another site in reality); the unguessable payment id is the capability and no money moves",
  ],
]);

/**
 * State-changing routes that take HTML-form bodies (application/x-www-form-urlencoded). Every
 * other route answers such bodies, and multipart ones, with 415: a cross-site HTML form can send
 * them without a CORS preflight, JSON it cannot.
 */
export const FORM_BODY_ROUTES: ReadonlySet<string> = new Set([
  'POST /api/billing/webhooks/:provider',
  'POST /unsubscribe',
  'POST /sandbox/checkout/:id',
]);

/** A token older than this is refused (419; the web app retries once with the fresh cookie the 419 carries). */
export const XSRF_TOKEN_VALIDITY_MS = 24 * 3_600_000;
/** Tokens are reissued on the next API answer once they are this old, so an active tab never meets the limit. */
const REISSUE_AFTER_MS = 3_600_000;

const FORM_TYPES = /^\s*(application\/x-www-form-urlencoded|multipart\/form-data)\s*(;|$)/i;

export const routeKey = (method: string, url: string | undefined) => `${method} ${url ?? ''}`;

/** The httpOnly cookie holding the per-browser key the XSRF token is bound to. */
export const xsrfKeyCookie = (secure: boolean) => (secure ? '__Host-warren-xsrf-key' : 'warren-xsrf-key');

/** `date-salt-hmac` (the @fastify/csrf format with validity on): when it was made, or 0 if unreadable. */
function issuedAt(token: string | undefined): number {
  const ms = token ? parseInt(token.split('-')[0] ?? '', 36) : NaN;
  return Number.isFinite(ms) ? ms : 0;
}

/**
 * XSRF protection: OWASP's signed double-submit cookie, bound to a per-browser pre-session key.
 *
 * - `warren-xsrf-key` (`__Host-` prefixed and Secure in production) is an httpOnly random key,
 *   set once per browser by @fastify/csrf-protection. A sibling subdomain cannot plant a
 *   `__Host-` cookie and page scripts cannot read it.
 * - `XSRF-TOKEN` (readable; the web app echoes it in `X-XSRF-TOKEN`) is
 *   `date-salt-HMAC(APP_SECRET-derived key, date-salt-key)`: valid only with the key cookie of
 *   the browser it was issued to, and for XSRF_TOKEN_VALIDITY_MS.
 *
 * Why a browser key and not the bearer session: the sign-in token lives in local storage and is
 * sent in the Authorization header, which a cross-site page can never make a browser attach;
 * the cookie jar is the only ambient credential, so the browser's own key is the session the
 * token has to be bound to. It also stays the same across sign-in, sign-out and token
 * rotation, so none of them makes the web app's next call fail.
 *
 * The check runs for every state-changing route by the route the router resolved (route-level
 * onRequest hook), whatever the URL's spelling (`/%61pi/...`); 404s never reach a handler.
 */
export async function registerXsrf(app: FastifyInstance, secret: string, secureCookies: boolean): Promise<void> {
  const keyCookie = xsrfKeyCookie(secureCookies);
  await app.register(fastifyCsrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: keyCookie,
    cookieOpts: { path: '/', sameSite: 'lax', httpOnly: true, secure: secureCookies },
    // Only the header: a token in a form field is exactly what a cross-site form could send.
    getToken: (req: FastifyRequest) => {
      const header = req.headers[XSRF_HEADER];
      return typeof header === 'string' ? header : undefined;
    },
    csrfOpts: { hmacKey: hmac(secret, 'xsrf-token-key'), validity: XSRF_TOKEN_VALIDITY_MS },
    logLevel: 'info',
  });

  const check = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (SAFE_METHODS.has(request.method)) return done();
    const key = routeKey(request.method, request.routeOptions.url);
    const next: HookHandlerDoneFunction = (err?: Error) => {
      if (err) return done(err);
      if (!FORM_BODY_ROUTES.has(key) && FORM_TYPES.test(String(request.headers['content-type'] ?? ''))) {
        return done(new DomainError(415, 'Unsupported content type: send JSON.'));
      }
      done();
    };
    if (XSRF_EXEMPT.has(key)) return next();
    // Answers 419 itself (its errors are mapped in plugins/errors.ts) or calls next.
    app.csrfProtection(request, reply, next);
  };

  // Every route, whichever plugin registers it later: the check is part of the route itself.
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    if (methods.every((m) => SAFE_METHODS.has(m))) return;
    route.onRequest = [...[route.onRequest ?? []].flat(), check];
  });

  app.addHook('onSend', async (request, reply) => {
    // Only on the answers a browser page reads (JSON, HTML): never on cacheable files, and not for
    // load-balancer health checks, which are no browsers.
    if (request.routeOptions.url === '/api/health') return;
    const type = String(reply.getHeader('content-type') ?? '');
    if (!type.startsWith('application/json') && !type.startsWith('text/html')) return;
    const presented = request.cookies[COOKIES.xsrf];
    const keyPresent = !!request.cookies[keyCookie];
    // A 419 always carries a fresh token: the client retries once with it.
    if (reply.statusCode !== 419 && keyPresent && presented && Date.now() - issuedAt(presented) < REISSUE_AFTER_MS)
      return;
    reply.setCookie(COOKIES.xsrf, reply.generateCsrf(), {
      path: '/',
      sameSite: 'lax',
      secure: secureCookies,
      httpOnly: false, // the web app reads it and echoes it in X-XSRF-TOKEN
    });
  });
}
