import { randomUUID } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { jsonSchemaTransform, serializerCompiler } from 'fastify-type-provider-zod';
import type { PublicBrand } from '@warren/contract';
import { loadBrandRegistry, toPublicBrand } from './brands/registry.js';
import type { Config } from './config.js';
import { type Database, openDatabase } from './db/client.js';
import { migrate } from './db/migrate.js';
import { createCaptchaVerifier } from './lib/captcha.js';
import { type RateLimiter, createMemoryRateLimiter, createRedisRateLimiter } from './lib/rate-limit.js';
import { type Mailer, createMailer } from './mail/mailer.js';
import { readCatalogue, seedCatalogue } from './modules/billing/catalogue.js';
import { startBillingJobs } from './modules/billing/jobs.js';
import { billingRoutes } from './modules/billing/routes.js';
import { type BillingService, billingService } from './modules/billing/service.js';
import { webhookRoutes } from './modules/billing/webhook-routes.js';
import { createGeoIp } from './lib/geoip.js';
import { buildProviders } from './payments/index.js';
import type { PaymentProviderId } from '@warren/contract';
import { systemRoutes } from './modules/system/routes.js';
import { affiliateRoutes } from './modules/affiliate/routes.js';
import { affiliateService } from './modules/affiliate/service.js';
import { featuresRoutes } from './modules/features/routes.js';
import { featuresService } from './modules/features/service.js';
import { profileRoutes } from './modules/profile/routes.js';
import { profileService } from './modules/profile/service.js';
import { rewardsRoutes } from './modules/rewards/routes.js';
import { rewardsService } from './modules/rewards/service.js';
import { usersRoutes } from './modules/users/routes.js';
import { usersService } from './modules/users/service.js';
import { vpnModule } from './modules/nodes/index.js';
import { servicesModule } from './modules/services/index.js';
import { requireUser } from './plugins/auth.js';
import { registerBrandResolution } from './plugins/context.js';
import { registerErrorHandling } from './plugins/errors.js';
import { registerSpa } from './plugins/spa.js';
import { zodValidatorCompiler } from './plugins/validation.js';
import { registerXsrf } from './plugins/xsrf.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Resolves once background work (emails) started so far has finished. */
    settle(): Promise<void>;
    /** The database the app runs on (tests and operator tooling read it directly). */
    db: Database;
    billing: BillingService;
  }
}

export interface AppDeps {
  db: Database;
  mailer: Mailer;
  limiter: RateLimiter;
}

/** Query parameters that carry secrets; their values never reach the logs. */
const SECRET_PARAMS = /([?&](?:token|t|password|code|otp|secret|key)=)[^&#]*/gi;
export const redactUrl = (url: string) => url.replace(SECRET_PARAMS, '$1[redacted]');

/**
 * Builds the whole application without listening: plugins, hooks, routes. Tests call this and
 * use `app.inject`; server.ts adds the listener and the signal handling.
 */
export async function buildApp(config: Config, overrides: Partial<AppDeps> = {}): Promise<FastifyInstance> {
  const db = overrides.db ?? (await openDatabase(config.database));
  await migrate(db);
  const brands = loadBrandRegistry(config.brandsFile);
  const mailer = overrides.mailer ?? createMailer(config.mail);
  let warnRedis: (err: unknown) => void = () => {};
  const limiter =
    overrides.limiter ??
    (config.redisUrl ? createRedisRateLimiter(config.redisUrl, undefined, (err) => warnRedis(err)) : createMemoryRateLimiter());
  const captcha = createCaptchaVerifier(config.captcha);
  const catalogue = readCatalogue(config.billing.catalogueFile);
  await seedCatalogue(db, catalogue);
  const geo = await createGeoIp(config.geoip.mmdbFile, config.geoip.defaultCountry);

  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]', 'res.headers.authorization'], remove: true },
      serializers: {
        req: (req: FastifyRequest) => ({ method: req.method, url: redactUrl(req.url), host: req.headers?.host }),
      },
    },
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && /^[A-Za-z0-9._-]{8,64}$/.test(incoming) ? incoming : randomUUID();
    },
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    routerOptions: { maxParamLength: 200 },
    return503OnClosing: true,
    // Raised before routing (malformed URL, over-long parameter): the one `{ message }` shape, without echoing the URL.
    frameworkErrors: (err, _request, reply) => {
      const tooLong = err.code === 'FST_ERR_MAX_PARAM_LENGTH';
      void (reply as FastifyReply).status(tooLong ? 414 : 400).send({ message: tooLong ? 'The URL is too long.' : 'Malformed URL.' });
    },
  });

  warnRedis = (err) => app.log.warn({ err }, 'Redis unreachable: rate limits counted in this instance only');

  // Work a request starts but does not wait for (emails): shutdown drains it before closing the database.
  const pending = new Set<Promise<unknown>>();
  const defer = (task: () => Promise<unknown>) => {
    const p = task()
      .catch((err) => app.log.error({ err }, 'background task failed'))
      .finally(() => pending.delete(p));
    pending.add(p);
  };
  app.decorate('db', db);
  app.decorate('settle', async () => {
    while (pending.size) await Promise.allSettled([...pending]);
  });

  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);

  // Plain HTML forms post url-encoded bodies (one-click unsubscribe, the sandbox page has its own raw parser).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  await app.register(fastifyCookie);
  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'Warren API', version: '0.1.0', description: 'Accounts, billing, setup and the VPN control plane.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api/docs' });

  registerBrandResolution(app, brands);
  registerXsrf(app, config.appSecret, config.isProduction);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'strict-origin-when-cross-origin');
    if (!request.url.startsWith('/api/docs')) {
      reply.header('x-frame-options', 'DENY');
      if (String(reply.getHeader('content-type') ?? '').startsWith('text/html')) reply.header('content-security-policy', contentSecurityPolicy(request));
    }
  });

  const brandOf = (request: FastifyRequest): PublicBrand =>
    toPublicBrand(request.brand, {
      captcha: { provider: config.captcha.provider, siteKey: config.captcha.siteKey ?? null },
      testAccountSuffixes: config.testAccountSuffixes,
      redirectHosts: brands.all().flatMap((b) => b.hosts),
    });
  function contentSecurityPolicy(request: FastifyRequest): string {
    const scriptHosts = [...new Set(request.brand.scripts.map((s) => new URL(s.src).origin))];
    const captchaHosts = { none: [], recaptcha: ['https://www.google.com', 'https://www.gstatic.com'], turnstile: ['https://challenges.cloudflare.com'] }[config.captcha.provider];
    const extra = [...scriptHosts, ...captchaHosts].join(' ');
    return [
      "default-src 'self'",
      `script-src 'self' ${extra}`.trim(),
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data: blob:",
      "font-src 'self' data:",
      `connect-src 'self' ${scriptHosts.join(' ')}`.trim(),
      `frame-src 'self' ${captchaHosts.join(' ')}`.trim(),
      "frame-ancestors 'none'",
      "base-uri 'self'",
      "form-action 'self'",
      "object-src 'none'",
    ].join('; ');
  }

  const users = usersService({ db, config, mailer, limiter, defer });
  const auth = requireUser(users);

  await app.register(systemRoutes, { db, mailer, devTools: !config.isProduction, brandOf, healthCacheMs: config.healthCacheMs });
  await app.register(usersRoutes, { users, brands, captcha, publicUrl: config.publicUrl, auth });
  await app.register(vpnModule, { db, auth });
  await app.register(servicesModule, { db, auth, secret: config.openvpnCaSecret });

  const brandName = (id: string) => brands.byId(id)?.productName ?? brands.all()[0]!.productName;
  const rewards = rewardsService(db, { daysPerFriend: config.rewardDays });
  await app.register(featuresRoutes, { features: featuresService(db), auth });
  await app.register(profileRoutes, { profiles: profileService({ db, config, mailer, limiter, defer, productName: brandName }), auth });
  await app.register(affiliateRoutes, {
    affiliate: affiliateService(db, {
      commissionPercent: config.affiliateCommissionPercent,
      portalUrl: (u) => (u.is_post_affiliate_available ? (brands.byId(u.brand)?.affiliatePortalUrl ?? null) : null),
    }),
    brands, publicUrl: config.publicUrl, auth,
  });
  await app.register(rewardsRoutes, { rewards, brands, publicUrl: config.publicUrl, auth });

  // The sandbox's hosted page lives on this server; its links use the public URL or the first brand host.
  const sandboxBase = () => config.publicUrl ?? `http://${brands.all()[0]!.hosts[0]}:${config.port}`;
  const { providers, sandbox } = buildProviders(config, db, sandboxBase);
  // The sandbox notifies us through the full HTTP stack (routing, raw body, signature check), as a provider would.
  const deliverSandbox = async (body: string, signature: string) =>
    (await app.inject({ method: 'POST', url: '/api/billing/webhooks/sandbox', headers: { 'content-type': 'application/json', 'sandbox-signature': signature }, payload: body })).statusCode;
  const billing = billingService({
    db,
    catalogue,
    providers,
    mailer,
    defer,
    moneyBackDays: config.billing.moneyBackDays,
    postbackUrls: config.billing.postbackUrls,
    isKnownHost: brands.isKnownHost,
    brandName,
    onPaymentApplied: (payment, first) => rewards.onPaymentApplied(payment, first),
  });
  app.decorate('billing', billing);
  await app.register(billingRoutes, {
    billing, users, brands, captcha, geo, auth, publicUrl: config.publicUrl,
    availableProviders: Object.keys(providers) as PaymentProviderId[],
  });
  await app.register(webhookRoutes, { billing, sandbox, deliverSandbox });
  if (config.jobs) {
    const stopJobs = startBillingJobs({ db, billing, sandbox, deliverSandbox, log: app.log });
    app.addHook('preClose', stopJobs);
  }

  const sendIndex = await registerSpa(app, config.webDistDir, brandOf);
  app.setNotFoundHandler((request, reply) => {
    if (sendIndex && request.method === 'GET' && !request.url.startsWith('/api/') && request.url !== '/api') {
      return sendIndex(request, reply);
    }
    return reply.status(404).send({ message: 'Not found.' });
  });

  app.addHook('onClose', async () => {
    await Promise.allSettled([...pending]);
    mailer.close();
    await limiter.close();
    if (!overrides.db) await db.close();
  });

  return app;
}
