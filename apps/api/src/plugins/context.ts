import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Brand, BrandRegistry } from '../brands/registry.js';
import type { RequestContext } from '../modules/users/service.js';

declare module 'fastify' {
  interface FastifyRequest {
    brand: Brand;
  }
}

/** Resolves the brand from the Host header once per request. */
export function registerBrandResolution(app: FastifyInstance, brands: BrandRegistry): void {
  app.decorateRequest('brand', null as unknown as Brand);
  app.addHook('onRequest', async (request) => {
    request.brand = brands.forHost(request.headers.host);
  });
}

/**
 * Links in emails point at the host the request came to only when that host is in the brand
 * registry; a forged Host header falls back to PUBLIC_URL or the brand's first host.
 */
export function contextOf(request: FastifyRequest, brands: BrandRegistry, publicUrl: string | undefined): RequestContext {
  const host = request.headers.host ?? '';
  const origin = brands.isKnownHost(host)
    ? `${request.protocol}://${host}`
    : (publicUrl ?? `${request.protocol}://${request.brand.hosts[0]}`);
  return {
    brand: request.brand,
    ip: request.ip,
    userAgent: String(request.headers['user-agent'] ?? ''),
    origin,
    browserId: () => request.browserId(),
  };
}
