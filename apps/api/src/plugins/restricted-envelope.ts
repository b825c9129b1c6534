import type { FastifyInstance } from 'fastify';
import {
  ENVELOPE_ANSWER_HEADERS,
  RESTRICTED_PATHS,
  type RestrictedEnvelopeAnswer,
  restrictedEnvelopeBody,
} from '@warren/contract';
import { DomainError, ForbiddenError, NotFoundError } from '../lib/errors.js';
import { randomToken, safeEqual } from '../lib/secrets.js';
import { RequestValidationError } from './errors.js';
import { ENCRYPTED_ONLY, RESTRICTED_DOC, decryptBody, encrypted, sealAnswer } from './restricted.js';
import { FORM_BODY_ROUTES, XSRF_EXEMPT, routeKey } from './xsrf.js';

/**
 * The envelope of a restricted host (README: Restricted hosts). A brand with mainProduct false
 * serves people behind filters that read what a page sends: there, a signed-in call's bearer
 * header is the session, and its answer may be a payment history, a subscription or a
 * WireGuard config. So on such a host:
 *
 * - a plain call carrying an `Authorization` header is refused (403) before anything else runs
 *   (the gate below: before the XSRF check, the body, the session), whatever route it names;
 * - the web app sends every signed-in call as one encrypted body to `POST /api/restrictedCall`:
 *   `{ token, method, path, query?, body?, headers? }`, sealed with the brand key like every
 *   restricted call (plugins/restricted.ts). The API runs the named call through the whole app
 *   (`app.inject`: routing, the XSRF check with this browser's cookies and header, validation,
 *   the session, rate limits on the client's own address, logs and metrics under the call's own
 *   route) with the same Host, and seals what it answered: the status, a few headers, the body
 *   (base64 when binary) and a rotated session token, never a clear Authorization header.
 *
 * Nothing new is reachable this way: the named call must be a customer route of this API
 * (`envelopeReaches`, checked on the route the router resolved, whatever the spelling), and it
 * runs as that call would run if sent directly to this host with the same session.
 */

/** The header that marks a call the envelope runs: its value is a per-process random key that never leaves the process. */
const INNER_HEADER = 'x-warren-envelope';
/** Set on the inner answer when the named call is not one the envelope reaches (read by the envelope, never sent out). */
const REFUSED_HEADER = 'x-warren-envelope-refused';
export const ENVELOPE_URL = `/api/${RESTRICTED_PATHS.envelope}`;
export const NOT_REACHED = 'This call cannot be made through the encrypted envelope.';

/**
 * Areas of `/api` the envelope never reaches, each with its reason. They have callers other than
 * a customer's browser with a session; the envelope would add nothing for them.
 */
export const NOT_THROUGH_ENVELOPE: ReadonlyMap<string, string> = new Map([
  ['/api/staff/', 'the operator console: its own HttpOnly cookie session, operators only'],
  ['/api/nodes/', 'VPN agents, with node tokens'],
  ['/api/billing/webhooks/', 'payment providers, server to server'],
  ['/api/dev/', 'development tools (the outbox)'],
  ['/api/docs', 'the API documentation pages'],
  ['/api/sub/', 'the stealth subscription: VPN apps fetch it with the secret in its path, without a session'],
  ['/api/health', 'load balancers'],
]);

/**
 * Routes whose callers send another kind of bearer header, which a restricted host still takes in
 * the clear: no customer session and no personal data travel there.
 */
const OTHER_BEARERS: ReadonlyMap<string, string> = new Map([
  [
    '/api/nodes/',
    "VPN agents authenticate with their node token (the agent's configuration names the API's address, which may be any of its hosts)",
  ],
  [
    '/api/billing/webhooks/',
    'payment providers call the callback URL of the brand they sold for; some send their own Authorization header',
  ],
]);

const inArea = (url: string, prefix: string) => url.startsWith(prefix) || url === prefix.replace(/\/$/, '');

/** Whether the envelope may run this route (by the route the router resolved: its method and pattern). */
export function envelopeReaches(route: {
  method: string;
  url: string | undefined;
  restrictedCall?: boolean;
  hidden?: boolean;
}): boolean {
  const { url } = route;
  if (!url || !url.startsWith('/api/') || route.restrictedCall || route.hidden) return false;
  if ([...NOT_THROUGH_ENVELOPE.keys()].some((p) => inArea(url, p))) return false;
  const key = routeKey(route.method, url);
  return !XSRF_EXEMPT.has(key) && !FORM_BODY_ROUTES.has(key);
}

/** Headers of the envelope's own request that the named call gets too: the same Host, browser (cookies: XSRF key, browser id) and language. */
const FORWARDED = ['host', 'cookie', 'user-agent', 'accept-language', 'origin', 'referer', 'x-xsrf-token'] as const;

export interface EnvelopeGate {
  /** The per-process key that marks the envelope's inner calls. */
  readonly innerKey: string;
}

/**
 * The gate, an onRequest hook of every route (registered right after the brand is resolved, so
 * it runs before the XSRF check, the body and the session): on a restricted host a call with an
 * Authorization header is refused unless the envelope runs it; a call the envelope runs must be
 * one it reaches.
 */
export function registerRestrictedHostGate(app: FastifyInstance): EnvelopeGate {
  const innerKey = randomToken();
  app.decorateRequest('viaEnvelope', false);
  app.addHook('onRequest', async (request, reply) => {
    const mark = request.headers[INNER_HEADER];
    if (mark !== undefined) {
      // Whatever a client sends in it is dropped; only the envelope knows the key.
      delete request.headers[INNER_HEADER];
      request.viaEnvelope = typeof mark === 'string' && safeEqual(mark, innerKey);
    }
    const { url, config, schema } = request.routeOptions;
    if (request.viaEnvelope) {
      if (
        envelopeReaches({
          method: request.method,
          url,
          restrictedCall: config?.restrictedCall,
          hidden: !!(schema as { hide?: boolean } | undefined)?.hide,
        })
      )
        return;
      reply.header(REFUSED_HEADER, '1');
      throw new NotFoundError(NOT_REACHED);
    }
    if (request.brand.mainProduct || request.headers.authorization === undefined) return;
    if (url && [...OTHER_BEARERS.keys()].some((p) => inArea(url, p))) return;
    throw new ForbiddenError(ENCRYPTED_ONLY);
  });
  return { innerKey };
}

/** The envelope's own route; registered after the XSRF plugin, so that its POST is checked like any other. */
export function registerRestrictedEnvelope(
  app: FastifyInstance,
  gate: EnvelopeGate,
  { bodyLimit }: { bodyLimit: number },
): void {
  // The sealed envelope of a body at the limit: base64 (4/3) of the body, the token, the path and the query.
  const envelopeLimit = Math.ceil(((bodyLimit + 8192) * 4) / 3) + 64;
  app.post(
    ENVELOPE_URL,
    {
      bodyLimit: envelopeLimit,
      config: { restrictedCall: true },
      schema: {
        tags: ['restricted'],
        description: `${RESTRICTED_DOC} The payload is { token, method, path, query?, body?, headers? } naming a signed-in call of this API; the answer is { status, headers, body | bodyBase64, rotatedToken? } of that call.`,
        response: { 200: encrypted },
      },
    },
    async (request, reply) => {
      const call = decryptBody(request, restrictedEnvelopeBody);
      if (call.method === 'GET' && call.body !== undefined)
        throw new RequestValidationError({ body: ['A GET call has no body.'] });
      const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
      if (payload !== undefined && Buffer.byteLength(payload) > bodyLimit)
        throw new DomainError(413, 'The request body is too large.');
      const headers: Record<string, string> = {};
      for (const name of FORWARDED) {
        const value = request.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      for (const [name, value] of Object.entries(call.headers ?? {}))
        if (typeof value === 'string') headers[name] = value;
      if (payload !== undefined) headers['content-type'] = 'application/json';
      headers.authorization = `Bearer ${call.token}`;
      headers[INNER_HEADER] = gate.innerKey;
      // One request id for both log lines: the envelope's and the call's.
      headers['x-request-id'] = request.id;
      const inner = await app.inject({
        method: call.method,
        url: call.query ? `${call.path}?${call.query}` : call.path,
        headers,
        // The client's own address (behind TRUST_PROXY, the one the proxy named): rate limits and the recommended location follow it.
        remoteAddress: request.ip,
        ...(payload === undefined ? {} : { payload }),
      });
      if (inner.headers[REFUSED_HEADER]) throw new NotFoundError(NOT_REACHED);
      // Cookies the call set (a fresh XSRF token, the browser id of a sign-in) reach the browser as from the call itself.
      const cookies = inner.headers['set-cookie'];
      if (cookies) reply.header('set-cookie', cookies);
      const answer: RestrictedEnvelopeAnswer = { status: inner.statusCode, headers: {} };
      for (const name of ENVELOPE_ANSWER_HEADERS) {
        const value = inner.headers[name];
        if (typeof value === 'string' || typeof value === 'number') answer.headers[name] = String(value);
      }
      const type = String(inner.headers['content-type'] ?? '');
      if (!type || /^(application\/json|text\/)/i.test(type)) answer.body = inner.body;
      else answer.bodyBase64 = inner.rawPayload.toString('base64');
      const rotated = /^Bearer\s+(\S+)$/i.exec(String(inner.headers.authorization ?? ''))?.[1];
      if (rotated) answer.rotatedToken = rotated;
      return reply
        .header('cache-control', 'no-store')
        .type('text/plain; charset=utf-8')
        .send(sealAnswer(request, answer));
    },
  );
}
