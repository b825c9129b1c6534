import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  affiliateSessionBody, createPaymentBody, createPaymentResult, currencies, envelope, guestPriceData, guestPriceQuery, ipInfo,
  landingPriceList, landingPriceListQuery, okMessage, paymentMethods, planInfo, type CreatePaymentBody, type PaymentProviderId,
} from '@warren/contract';
import type { BrandRegistry } from '../../brands/registry.js';
import type { CaptchaVerifier } from '../../lib/captcha.js';
import type { GeoIp } from '../../lib/geoip.js';
import { userOf } from '../../plugins/auth.js';
import { contextOf } from '../../plugins/context.js';
import { RESTRICTED_DOC, decryptBody, sealAnswer } from '../../plugins/restricted.js';
import type { UsersService } from '../users/service.js';
import type { BillingService } from './service.js';

export interface BillingRoutesDeps {
  billing: BillingService;
  users: UsersService;
  brands: BrandRegistry;
  captcha: CaptchaVerifier;
  geo: GeoIp;
  publicUrl?: string;
  availableProviders: PaymentProviderId[];
  auth: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

const tags = ['billing'];
/** Spec-named calls that create a payment with one provider. */
const providerQuery = createPaymentBody.omit({ provider: true });
const restrictedPaymentBody = createPaymentBody.omit({ provider: true }).extend({ token: z.string().min(20).max(200).optional() });

/** What each provider offers, per country; the list only shows configured providers. */
function methodsFor(country: string, available: PaymentProviderId[]) {
  const all: { provider: PaymentProviderId; type: string; label: string; countries?: string[]; exceptCountries?: string[] }[] = [
    { provider: 'sandbox', type: 'card', label: 'Test card (sandbox)' },
    { provider: 'stripe', type: 'card', label: 'Card', exceptCountries: ['RU', 'BY'] },
    { provider: 'cardlink', type: 'card_ru', label: 'Russian bank card (Mir, Visa, Mastercard)', countries: ['RU', 'BY', 'KZ'] },
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
  const { billing, users, brands, captcha, geo, auth } = deps;
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const ctx = (request: FastifyRequest) => contextOf(request, brands, deps.publicUrl);
  const country = (request: FastifyRequest) => geo.country(request.ip);
  /** Public calls that say more to a signed-in member; a bad or missing token just means anonymous. */
  const optionalUser = async (request: FastifyRequest) => {
    const token = request.headers.authorization?.replace(/^Bearer\s+/i, '');
    return token ? (await users.authenticate(token).catch(() => undefined))?.user : undefined;
  };

  app.get('/api/ip/info', { schema: { tags: ['geo'], response: { 200: envelope(ipInfo) } } }, async (request) => {
    const code = country(request);
    return { data: { code, currency: billing.currencyFor(code) } };
  });

  app.get('/api/billing/getCurrencies', { schema: { tags, response: { 200: envelope(currencies) } } }, async (request) => ({
    data: await billing.currencies(country(request)),
  }));

  app.get('/api/billing/getLandingPriceList', { schema: { tags, querystring: landingPriceListQuery, response: { 200: envelope(landingPriceList) } } }, async (request) => ({
    data: await billing.landingPriceList(request.query, country(request)),
  }));

  app.get('/api/billing/getGuestPriceData', { schema: { tags, querystring: guestPriceQuery, response: { 200: envelope(guestPriceData) } } }, async (request) => ({
    data: await billing.guestPriceData(request.query, country(request), await optionalUser(request)),
  }));

  app.get('/api/billing/paymentMethods', { schema: { tags, querystring: z.object({ country: z.string().regex(/^[A-Z]{2}$/).optional() }), response: { 200: envelope(paymentMethods) } } }, async (request) => {
    const code = request.query.country ?? country(request);
    return { data: { country: code, currency: billing.currencyFor(code), methods: methodsFor(code, deps.availableProviders) } };
  });

  app.get('/api/billing/getPlanInfo', { preHandler: auth, schema: { tags, response: { 200: envelope(planInfo) } } }, async (request) => ({
    data: await billing.planInfo(userOf(request)),
  }));

  const pay = async (request: FastifyRequest, body: CreatePaymentBody, flow: 'redirect' | 'embedded' = 'redirect') => {
    await captcha.verify(body['g-recaptcha-response'], request.ip);
    return billing.createPayment(userOf(request), body, ctx(request), { flow });
  };
  const idempotencyHeader = (request: FastifyRequest) => {
    const h = request.headers['idempotency-key'];
    return typeof h === 'string' && /^[A-Za-z0-9_-]{8,100}$/.test(h) ? h : undefined;
  };

  app.post('/api/billing/createPayment', { preHandler: auth, schema: { tags, body: createPaymentBody, response: { 200: envelope(createPaymentResult) } } }, async (request) => ({
    data: await pay(request, { ...request.body, idempotencyKey: request.body.idempotencyKey ?? idempotencyHeader(request) }),
  }));

  app.get('/api/billing/getStripePayment', { preHandler: auth, schema: { tags, querystring: providerQuery, response: { 200: envelope(createPaymentResult) } } }, async (request) => ({
    // The spec's call answers the client secret for an embedded card form; the generic createPayment redirects to Stripe Checkout.
    data: await pay(request, { ...request.query, provider: 'stripe', idempotencyKey: request.query.idempotencyKey ?? idempotencyHeader(request) }, 'embedded'),
  }));

  app.post('/api/billing/getPayssionPaymentData', { preHandler: auth, schema: { tags, body: providerQuery, response: { 200: envelope(createPaymentResult) } } }, async (request) => ({
    data: await pay(request, { ...request.body, provider: 'payssion', idempotencyKey: request.body.idempotencyKey ?? idempotencyHeader(request) }),
  }));

  app.post('/api/billing/getPayssionV2MandateOrDoPayment', { preHandler: auth, schema: { tags, body: providerQuery, response: { 200: envelope(createPaymentResult) } } }, async (request) => ({
    data: await pay(request, { ...request.body, provider: 'payssionv2', idempotencyKey: request.body.idempotencyKey ?? idempotencyHeader(request) }),
  }));

  // Restricted variants: encrypted bodies; the token may travel inside the body instead of a header.
  const restricted = (path: string, provider: PaymentProviderId) =>
    app.post(path, { schema: { tags, description: RESTRICTED_DOC } }, async (request, reply) => {
      const body = decryptBody(request, restrictedPaymentBody);
      if (body.token && !request.headers.authorization) request.headers.authorization = `Bearer ${body.token}`;
      await auth(request, reply);
      const { token: _token, ...rest } = body;
      const result = await pay(request, { ...rest, provider });
      return reply.type('text/plain; charset=utf-8').send(sealAnswer(request, { data: result }));
    });
  restricted('/api/billing/getRestrictedStripePayment', 'stripe');
  restricted('/api/billing/getRestrictedPayssionPaymentData', 'payssion');
  restricted('/api/billing/getRestrictedCardlinkPaymentData', 'cardlink');

  app.post('/api/affiliate/session/create', { schema: { tags: ['affiliate'], body: affiliateSessionBody, response: { 200: okMessage } } }, async (request) => {
    // Signed-in or not: a click on a referral link counts either way; the user is attached when known.
    await billing.recordAffiliateSession(request.body.referralID, request.body.url, (await optionalUser(request))?.id ?? null);
    return { data: { ok: true as const }, message: 'Recorded.' };
  });
}
