import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  billingAddressBody,
  billingAddressResult,
  envelope,
  languageFromTag,
  methodUpdateStart,
  setAutoRenewBody,
  subscriptionInfo,
  switchOptions,
  switchPlanBody,
  switchPlanResult,
} from '@warren/contract';
import { userOf } from '../../plugins/auth.js';
import type { RenewalsService } from './renewals.js';
import type { SwitchingService } from './switching.js';
import type { BillingAddressService } from './billing-address.js';

export interface SubscriptionRoutesDeps {
  billing: { renewals: RenewalsService; switching: SwitchingService; addresses: BillingAddressService };
  auth: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** The origin of the request's brand host (plugins/context.ts contextOf): the provider's return address. */
  originOf: (request: FastifyRequest) => string;
}

const tags = ['billing'];

/** The member's own subscription: what renews, when, at what price and with what; auto-renew on or off. */
export async function subscriptionRoutes(fastify: FastifyInstance, deps: SubscriptionRoutesDeps) {
  const { auth } = deps;
  const { renewals, switching, addresses } = deps.billing;
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/api/billing/subscription',
    { preHandler: auth, schema: { tags, response: { 200: envelope(subscriptionInfo) } } },
    async (request, reply) => {
      reply.header('cache-control', 'private, no-store');
      return { data: await renewals.info(userOf(request)) };
    },
  );

  app.post(
    '/api/billing/subscription/autoRenew',
    {
      preHandler: auth,
      schema: {
        tags,
        body: setAutoRenewBody,
        response: { 200: envelope(subscriptionInfo) },
        description:
          '409 when the plan cannot renew (lifetime, no active plan, or no method that can be charged again).',
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'private, no-store');
      return { data: await renewals.setAutoRenew(userOf(request), request.body.enabled) };
    },
  );

  app.get(
    '/api/billing/subscription/switch/options',
    {
      preHandler: auth,
      schema: {
        tags,
        response: { 200: envelope(switchOptions) },
        description:
          'The periods the member can switch to, each with its quote: a longer one now (price, credit for the unused part, charge), a shorter one at the next renewal, or why not.',
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'private, no-store');
      return { data: await switching.options(userOf(request)) };
    },
  );

  app.post(
    '/api/billing/subscription/switch',
    {
      preHandler: auth,
      schema: {
        tags,
        body: switchPlanBody,
        response: { 200: envelope(switchPlanResult) },
        description:
          'A longer period: a checkout of the difference (the payment applies once, only while the plan it was quoted against holds). A shorter one: scheduled for the next renewal. 409 when the switch is not possible or the quote moved.',
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'private, no-store');
      const accept = request.headers['accept-language'];
      return {
        data: await switching.start(userOf(request), request.body, {
          origin: deps.originOf(request),
          language: accept ? languageFromTag(accept) : undefined,
        }),
      };
    },
  );

  app.post(
    '/api/billing/subscription/switch/cancel',
    {
      preHandler: auth,
      schema: {
        tags,
        response: { 200: envelope(subscriptionInfo) },
        description: 'Drops a scheduled move to a shorter period; 409 when none is scheduled.',
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'private, no-store');
      return { data: await switching.cancelScheduled(userOf(request)) };
    },
  );

  app.post(
    '/api/billing/subscription/paymentMethod/update',
    {
      preHandler: auth,
      schema: {
        tags,
        response: { 200: envelope(methodUpdateStart) },
        description:
          "Change the card without buying again: the provider's own page to save a new method (Stripe Checkout in setup mode, the sandbox's). 409 when there is no saved method or its provider has no such page.",
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'private, no-store');
      const origin = deps.originOf(request);
      const accept = request.headers['accept-language'];
      const user = userOf(request);
      return {
        data: await renewals.startMethodUpdate(user, {
          origin,
          returnUrl: new URL('/subscription?method=updated', origin).href,
          language: accept ? languageFromTag(accept) : undefined,
        }),
      };
    },
  );

  app.post(
    '/api/billing/subscription/paymentMethod/confirm',
    {
      preHandler: auth,
      schema: {
        tags,
        response: { 200: envelope(subscriptionInfo) },
        description:
          'Back from the card update: the new method replaces the saved one once the provider says it was saved (409 otherwise).',
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'private, no-store');
      return { data: await renewals.confirmMethodUpdate(userOf(request)) };
    },
  );

  app.get(
    '/api/billing/address',
    { preHandler: auth, schema: { tags, response: { 200: envelope(billingAddressResult) } } },
    async (request, reply) => {
      reply.header('cache-control', 'private, no-store');
      return { data: await addresses.get(userOf(request).id) };
    },
  );

  app.post(
    '/api/billing/address',
    {
      preHandler: auth,
      schema: {
        tags,
        body: billingAddressBody,
        response: { 200: envelope(billingAddressResult) },
        description:
          'Saves the billing address and VAT number printed on the receipts issued from now on (a VAT number is checked by its format per EU country, not against VIES).',
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'private, no-store');
      return { data: await addresses.save(userOf(request).id, request.body) };
    },
  );

  app.post(
    '/api/billing/address/remove',
    { preHandler: auth, schema: { tags, response: { 200: envelope(billingAddressResult) } } },
    async (request, reply) => {
      reply.header('cache-control', 'private, no-store');
      return { data: await addresses.remove(userOf(request).id) };
    },
  );
}
