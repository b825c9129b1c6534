import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createPaymentBody,
  createPaymentResult,
  currencies,
  envelope,
  guestPriceData,
  guestPriceQuery,
  landingPriceList,
  landingPriceListQuery,
  paymentMethods,
  planInfo,
  restrictedCreatePaymentBody,
  restrictedPaymentBody,
  type CreatePaymentBody,
  type PaymentProviderId,
} from '@warren/contract';
import type { BrandOrigins } from '../../brands/origins.js';
import type { CaptchaVerifier } from '../../lib/captcha.js';
import type { GeoIp } from '../../lib/geoip.js';
import { userOf } from '../../plugins/auth.js';
import { contextOf } from '../../plugins/context.js';
import { mainProductOnly, restrictedRoute } from '../../plugins/restricted.js';
import type { UserRow } from '../users/index.js';
import { CAMPAIGN_COOKIE_DAYS, languageFromTag } from '@warren/contract';
import type { CheckoutContext } from './checkout.js';
import { paymentHistoryRoutes } from './history-routes.js';
import { subscriptionRoutes } from './subscription-routes.js';
import type { CheckoutService } from './checkout.js';
import type { HistoryService } from './history.js';
import type { CookieToSet, PricesService } from './prices.js';
import type { ReceiptsService } from './receipts.js';
import type { RefundRequestService } from './refund-request.js';
import type { RenewalsService } from './renewals.js';
import type { SwitchingService } from './switching.js';
import type { BillingAddressService } from './billing-address.js';

export interface BillingRoutesDeps {
  /** The billing services the routes call (index.ts builds them; named by their own files, so index.ts and the routes don't import each other). */
  billing: {
    prices: PricesService;
    checkout: CheckoutService;
    history: HistoryService;
    receipts: ReceiptsService;
    refunds: RefundRequestService;
    renewals: RenewalsService;
    switching: SwitchingService;
    addresses: BillingAddressService;
  };
  /** The signed-in member when the request carries a good token; public calls say more to them. */
  optionalUser: (request: FastifyRequest) => Promise<UserRow | undefined>;
  origins: BrandOrigins;
  captcha: CaptchaVerifier;
  geo: GeoIp;
  availableProviders: PaymentProviderId[];
  auth: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** Cookies marked Secure (production). */
  secureCookies?: boolean;
}

const tags = ['billing'];
/** Spec-named calls that create a payment with one provider. */
const providerQuery = createPaymentBody.omit({ provider: true });
/** The same as a query string (getStripePayment): the auto-renew choice comes as the text true or false. */
const providerQueryString = providerQuery.extend({
  autoRenew: z
    .enum(['true', 'false'], { error: 'autoRenew must be true or false.' })
    .transform((v) => v === 'true')
    .optional(),
});

/** What each provider offers, per country; the list only shows configured providers. */
function methodsFor(country: string, available: PaymentProviderId[]) {
  const all: {
    provider: PaymentProviderId;
    type: string;
    label: string;
    countries?: string[];
    exceptCountries?: string[];
  }[] = [
    { provider: 'sandbox', type: 'card', label: 'Test card (sandbox)' },
    { provider: 'stripe', type: 'card', label: 'Card', exceptCountries: ['RU', 'BY'] },
    {
      provider: 'cardlink',
      type: 'card_ru',
      label: 'Russian bank card (Mir, Visa, Mastercard)',
      countries: ['RU', 'BY', 'KZ'],
    },
    { provider: 'payssion', type: 'alipay_cn', label: 'Alipay', countries: ['CN', 'HK'] },
    { provider: 'payssion', type: 'wechatpay_cn', label: 'WeChat Pay', countries: ['CN'] },
    { provider: 'payssion', type: 'yoomoney_ru', label: 'YooMoney', countries: ['RU'] },
    { provider: 'payssionv2', type: 'card', label: 'Card (saved for renewals)', exceptCountries: ['RU', 'BY', 'CN'] },
  ];
  return all
    .filter((m) => available.includes(m.provider))
    .filter((m) => (!m.countries || m.countries.includes(country)) && !m.exceptCountries?.includes(country))
    .map(({ provider, type, label }) => ({ provider, type, label }));
}

export async function billingRoutes(fastify: FastifyInstance, deps: BillingRoutesDeps) {
  const { origins, captcha, geo, auth, optionalUser } = deps;
  const { prices, checkout } = deps.billing;
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const ctx = (request: FastifyRequest) => contextOf(request, origins);
  const country = (request: FastifyRequest) => geo.country(request.ip);

  app.get(
    '/api/billing/getCurrencies',
    { schema: { tags, response: { 200: envelope(currencies) } } },
    async (request) => ({
      data: await prices.currencies(country(request)),
    }),
  );

  /**
   * The discount window's first-visit cookie: readable by the page (its countdown), signed so it
   * cannot be moved, and kept longer than the window so a returning visitor gets no fresh one.
   */
  const writeCookie = (reply: FastifyReply, cookie: CookieToSet) =>
    reply.setCookie(cookie.name, cookie.value, {
      path: '/',
      maxAge: CAMPAIGN_COOKIE_DAYS * 24 * 3600,
      sameSite: 'lax',
      secure: !!deps.secureCookies,
      httpOnly: false,
    });

  app.get(
    '/api/billing/getLandingPriceList',
    { schema: { tags, querystring: landingPriceListQuery, response: { 200: envelope(landingPriceList) } } },
    async (request, reply) => {
      const { setCookie, ...data } = await prices.landingPriceList(request.query, country(request), request.cookies);
      if (setCookie) writeCookie(reply, setCookie);
      // The answer depends on the browser's cookie: never shared by a cache.
      reply.header('cache-control', 'private, no-store');
      return { data };
    },
  );

  app.get(
    '/api/billing/getGuestPriceData',
    { schema: { tags, querystring: guestPriceQuery, response: { 200: envelope(guestPriceData) } } },
    async (request) => ({
      data: await prices.guestPriceData(request.query, country(request), await optionalUser(request), request.cookies),
    }),
  );

  app.get(
    '/api/billing/paymentMethods',
    {
      schema: {
        tags,
        querystring: z.object({
          country: z
            .string()
            .regex(/^[A-Z]{2}$/)
            .optional(),
        }),
        response: { 200: envelope(paymentMethods) },
      },
    },
    async (request) => {
      const code = request.query.country ?? country(request);
      return {
        data: { country: code, currency: prices.currencyFor(code), methods: methodsFor(code, deps.availableProviders) },
      };
    },
  );

  app.get(
    '/api/billing/getPlanInfo',
    { preHandler: auth, schema: { tags, response: { 200: envelope(planInfo) } } },
    async (request) => ({
      data: await checkout.planInfo(userOf(request)),
    }),
  );

  const pay = async (request: FastifyRequest, body: CreatePaymentBody, flow: 'redirect' | 'embedded' = 'redirect') => {
    await captcha.verify(body['g-recaptcha-response'], request.ip);
    const buyer: CheckoutContext = {
      origin: ctx(request).origin,
      cookies: request.cookies,
      language: request.headers['accept-language'] ? languageFromTag(request.headers['accept-language']) : undefined,
      autoRenewDefault: request.brand.autoRenewDefault,
    };
    return checkout.createPayment(userOf(request), body, buyer, { flow });
  };
  const idempotencyHeader = (request: FastifyRequest) => {
    const h = request.headers['idempotency-key'];
    return typeof h === 'string' && /^[A-Za-z0-9_-]{8,100}$/.test(h) ? h : undefined;
  };

  app.post(
    '/api/billing/createPayment',
    {
      preValidation: mainProductOnly,
      preHandler: auth,
      schema: { tags, body: createPaymentBody, response: { 200: envelope(createPaymentResult) } },
    },
    async (request) => ({
      data: await pay(request, {
        ...request.body,
        idempotencyKey: request.body.idempotencyKey ?? idempotencyHeader(request),
      }),
    }),
  );

  app.get(
    '/api/billing/getStripePayment',
    {
      preValidation: mainProductOnly,
      preHandler: auth,
      schema: { tags, querystring: providerQueryString, response: { 200: envelope(createPaymentResult) } },
    },
    async (request) => ({
      // The spec's call answers the client secret for an embedded card form; the generic createPayment redirects to Stripe Checkout.
      data: await pay(
        request,
        {
          ...request.query,
          provider: 'stripe',
          idempotencyKey: request.query.idempotencyKey ?? idempotencyHeader(request),
        },
        'embedded',
      ),
    }),
  );

  app.post(
    '/api/billing/getPayssionPaymentData',
    {
      preValidation: mainProductOnly,
      preHandler: auth,
      schema: { tags, body: providerQuery, response: { 200: envelope(createPaymentResult) } },
    },
    async (request) => ({
      data: await pay(request, {
        ...request.body,
        provider: 'payssion',
        idempotencyKey: request.body.idempotencyKey ?? idempotencyHeader(request),
      }),
    }),
  );

  app.post(
    '/api/billing/getPayssionV2MandateOrDoPayment',
    {
      preValidation: mainProductOnly,
      preHandler: auth,
      schema: { tags, body: providerQuery, response: { 200: envelope(createPaymentResult) } },
    },
    async (request) => ({
      data: await pay(request, {
        ...request.body,
        provider: 'payssionv2',
        idempotencyKey: request.body.idempotencyKey ?? idempotencyHeader(request),
      }),
    }),
  );

  // Restricted variants: encrypted bodies, the session token inside (never a bearer header), the
  // answer and a rotated token sealed. A restricted host pays only through these (the plain calls
  // above refuse it), so every provider has one: the spec's three, and restrictedCreatePayment
  // (provider in the body) for the rest.
  const restricted = (path: string, provider?: PaymentProviderId) =>
    restrictedRoute(
      fastify,
      path,
      { tags, auth, body: provider ? restrictedPaymentBody : restrictedCreatePaymentBody },
      async (request, body) => {
        const { token: _token, ...rest } = body;
        return { data: await pay(request, { ...rest, provider: provider ?? (rest as CreatePaymentBody).provider }) };
      },
    );
  restricted('/api/billing/getRestrictedStripePayment', 'stripe');
  restricted('/api/billing/getRestrictedPayssionPaymentData', 'payssion');
  restricted('/api/billing/getRestrictedCardlinkPaymentData', 'cardlink');
  restricted('/api/billing/restrictedCreatePayment');

  // The customer's payments, receipts and money-back requests (history-routes.ts).
  await paymentHistoryRoutes(fastify, { billing: deps.billing, auth });
  // The member's subscription and auto-renew (subscription-routes.ts).
  await subscriptionRoutes(fastify, { billing: deps.billing, auth, originOf: (request) => ctx(request).origin });
}
