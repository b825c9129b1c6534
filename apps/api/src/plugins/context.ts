import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type BrandOrigins, type ParsedHost, parseHost } from '../brands/origins.js';
import type { Brand, BrandRegistry } from '../brands/registry.js';
import { BadRequestError } from '../lib/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    brand: Brand;
    /** The Host header, parsed strictly (brands/origins.ts parseHost); undefined when the request had none. */
    parsedHost: ParsedHost | undefined;
  }
}

/**
 * Resolves the brand from the Host header once per request. Only the Host header counts:
 * X-Forwarded-Host is never read (a proxy in front passes the Host on, README: Brands), and an
 * absolute request target (`GET http://other/ HTTP/1.1`) does not change the brand either.
 *
 * A malformed Host (userinfo `localhost@evil.example`, `#`, `/`, `\`, spaces, several hosts, an
 * empty value, a port outside 1-65535) is refused with 400, as nginx does: no client sends one,
 * and refusing it at the door means no code behind it can ever read it. A well-formed Host that
 * is not registered is served the first brand, and its links use that brand's canonical origin
 * (contextOf).
 */
export function registerBrandResolution(app: FastifyInstance, brands: BrandRegistry): void {
  app.decorateRequest('brand', null as unknown as Brand);
  app.decorateRequest('parsedHost', undefined);
  app.addHook('onRequest', async (request) => {
    const raw = request.headers.host;
    const parsed = raw === undefined ? undefined : parseHost(raw);
    if (parsed === null) throw new BadRequestError('Malformed Host header.');
    request.parsedHost = parsed;
    request.brand = brands.forHost(parsed?.hostname);
  });
}

/**
 * The request's brand, address and the origin of the links the server writes for it (mails,
 * referral links, payment return and callback URLs): from the brand registry and the
 * configuration only (brands/origins.ts), never from the Host header's text.
 */
/** Who asks, from where, for which brand: what a service needs of a request (mail links, budgets, notices). */
export interface RequestContext {
  brand: Brand;
  ip: string;
  userAgent: string;
  /** Origin for links in emails: always a host of the brand registry, never an arbitrary Host header. */
  origin: string;
  /** This browser's id (plugins/browser-id.ts); asking for it sets the cookie on the answer. Absent outside a browser's request (staff, CLI). */
  browserId?: () => string;
}

export function contextOf(request: FastifyRequest, origins: BrandOrigins): RequestContext {
  return {
    brand: request.brand,
    ip: request.ip,
    userAgent: String(request.headers['user-agent'] ?? ''),
    origin: origins.forRequest(request.brand, request.parsedHost),
    browserId: () => request.browserId(),
  };
}
