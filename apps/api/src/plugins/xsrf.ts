import type { FastifyInstance } from 'fastify';
import { COOKIES, XSRF_HEADER } from '@warren/contract';
import { DomainError } from '../lib/errors.js';
import { hmac, randomToken, safeEqual } from '../lib/secrets.js';

/** Machine-to-machine endpoints authenticate otherwise (node tokens, provider signatures). */
const EXEMPT_PREFIXES = ['/api/nodes/', '/api/billing/webhooks/', '/api/payments/webhooks/'];
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Double-submit XSRF protection with a signed token: the cookie holds `random.hmac(random)`,
 * so a cookie planted by a sibling subdomain (which cannot sign) is worthless.
 */
export function registerXsrf(app: FastifyInstance, secret: string, secureCookies: boolean): void {
  const sign = (nonce: string) => `${nonce}.${hmac(`xsrf:${secret}`, nonce)}`;
  const isSigned = (value: string | undefined): value is string => {
    if (!value) return false;
    const [nonce, mac, extra] = value.split('.');
    return !!nonce && !!mac && extra === undefined && safeEqual(sign(nonce), value);
  };

  app.addHook('onRequest', async (request) => {
    if (SAFE_METHODS.has(request.method) || !request.url.startsWith('/api/')) return;
    if (EXEMPT_PREFIXES.some((p) => request.url.startsWith(p))) return;
    const cookie = request.cookies[COOKIES.xsrf];
    const header = request.headers[XSRF_HEADER];
    if (typeof header !== 'string' || !isSigned(cookie) || !safeEqual(header, cookie)) {
      throw new DomainError(419, 'The page has expired. Please refresh and try again.');
    }
  });

  app.addHook('onSend', async (request, reply) => {
    // Load-balancer health checks are no browsers: no cookie for them.
    if (request.url === '/api/health' || isSigned(request.cookies[COOKIES.xsrf])) return;
    reply.setCookie(COOKIES.xsrf, sign(randomToken(16)), {
      path: '/',
      sameSite: 'lax',
      secure: secureCookies,
      httpOnly: false, // the web app reads it and echoes it in X-XSRF-TOKEN
    });
  });
}
