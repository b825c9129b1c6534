import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { envelope, ipInfo } from '@warren/contract';
import type { GeoIp } from '../../lib/geoip.js';

/** Where a visitor is: the country of the request's address and the currency we price it in. */
export async function geoRoutes(
  fastify: FastifyInstance,
  opts: { geo: GeoIp; currencyFor: (country: string) => string },
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/ip/info',
    { schema: { tags: ['geo'], response: { 200: envelope(ipInfo) } } },
    async (request: FastifyRequest) => {
      const code = opts.geo.country(request.ip);
      return { data: { code, currency: opts.currencyFor(code) } };
    },
  );
}
