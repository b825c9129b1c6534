import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  addWgDeviceBody,
  envelope,
  okMessage,
  renameWgDeviceBody,
  revokeWgDeviceBody,
  rotateWgKeyBody,
  setWgKeyLifetimeBody,
  SETUP_PATHS,
  wgDevice,
  wgOverview,
  wgOverviewQuery,
} from '@warren/contract';
import { ForbiddenError } from '../../lib/errors.js';
import { userOf } from '../../plugins/auth.js';
import type { WireguardService } from './service.js';

export interface WireguardRoutesDeps {
  wireguard: WireguardService;
  auth: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** Country code of a client address (lib/geoip.ts): where the recommended location is measured from. */
  countryOf: (ip: string) => string;
}

export async function wireguardRoutes(fastify: FastifyInstance, { wireguard, auth, countryOf }: WireguardRoutesDeps) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['wireguard'];

  /** The section follows the user's isWgSectionAvailable flag and the brand's wgSection switch. */
  const section = async (request: FastifyRequest, reply: FastifyReply) => {
    await auth(request, reply);
    if (!userOf(request).is_wg_section_available || request.brand.wgSection === false)
      throw new ForbiddenError('WireGuard is not available for this account.');
  };

  app.get(
    SETUP_PATHS.wg,
    { preHandler: section, schema: { tags, querystring: wgOverviewQuery, response: { 200: envelope(wgOverview) } } },
    async (request) => ({
      data: await wireguard.overview(
        userOf(request),
        request.query.langCode,
        countryOf(request.ip),
        request.query.port,
      ),
    }),
  );

  app.post(
    SETUP_PATHS.wgAdd,
    {
      preHandler: section,
      schema: { tags, body: addWgDeviceBody, response: { 201: envelope(z.object({ device: wgDevice })) } },
    },
    async (request, reply) =>
      reply.status(201).send({
        data: {
          device: await wireguard.add(
            userOf(request),
            request.body.name,
            request.body.publicKey,
            request.body.location,
          ),
        },
      }),
  );

  app.post(
    SETUP_PATHS.wgRename,
    { preHandler: section, schema: { tags, body: renameWgDeviceBody, response: { 200: okMessage } } },
    async (request) => {
      await wireguard.rename(userOf(request), request.body.id, request.body.name);
      return { data: { ok: true as const }, message: 'Device renamed.' };
    },
  );

  app.post(
    SETUP_PATHS.wgRevoke,
    { preHandler: section, schema: { tags, body: revokeWgDeviceBody, response: { 200: okMessage } } },
    async (request) => {
      await wireguard.revoke(userOf(request), request.body.id);
      return { data: { ok: true as const }, message: 'Device revoked.' };
    },
  );

  app.post(
    SETUP_PATHS.wgRotate,
    {
      preHandler: section,
      schema: { tags, body: rotateWgKeyBody, response: { 200: envelope(z.object({ device: wgDevice })) } },
    },
    async (request) => ({
      data: {
        device: await wireguard.rotate(
          userOf(request),
          request.body.id,
          request.body.previousKey,
          request.body.publicKey,
        ),
      },
    }),
  );

  app.post(
    SETUP_PATHS.wgLifetime,
    {
      preHandler: section,
      schema: { tags, body: setWgKeyLifetimeBody, response: { 200: envelope(z.object({ device: wgDevice })) } },
    },
    async (request) => ({
      data: { device: await wireguard.setLifetime(userOf(request), request.body.id, request.body.days) },
    }),
  );
}
