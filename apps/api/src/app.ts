import { randomUUID } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import fastifyHelmet from '@fastify/helmet';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { jsonSchemaTransform, serializerCompiler } from 'fastify-type-provider-zod';
import type { PublicBrand } from '@warren/contract';
import { toPublicBrand } from './brands/registry.js';
import { type ServiceDeps, type Services, buildServices } from './composition.js';
import type { Config } from './config.js';
import { type Database, openDatabase } from './db/client.js';
import { migrate } from './db/migrate.js';
import type { RateLimiter } from './lib/rate-limit.js';
import type { Mailer } from './mail/mailer.js';
import { type BillingServices, billingRoutes, seedCatalogue, webhookRoutes } from './modules/billing/index.js';
import type { PaymentProviderId } from '@warren/contract';
import { affiliateRoutes } from './modules/affiliate/index.js';
import { featuresRoutes } from './modules/ad-blocker/index.js';
import { geoRoutes } from './modules/geo/index.js';
import { profileRoutes } from './modules/profile/index.js';
import { passkeyRoutes, relyingPartyOf } from './modules/passkeys/index.js';
import { rewardsRoutes } from './modules/rewards/index.js';
import { systemRoutes } from './modules/system/index.js';
import { staffModule } from './modules/staff/index.js';
import { usersRoutes } from './modules/users/index.js';
import { vpnModule } from './modules/nodes/index.js';
import { openvpnSocks5Module } from './modules/openvpn-socks5/index.js';
import { stealthModule } from './modules/stealth/index.js';
import { requireUser } from './plugins/auth.js';
import { registerBrowserId } from './plugins/browser-id.js';
import { contextOf, registerBrandResolution } from './plugins/context.js';
import { registerErrorHandling } from './plugins/errors.js';
import { registerRestrictedEnvelope, registerRestrictedHostGate } from './plugins/restricted-envelope.js';
import { countRejectedWebhooks, registerHttpMetrics } from './plugins/metrics.js';
import { isReservedPath, registerSpa } from './plugins/spa.js';
import { zodValidatorCompiler } from './plugins/validation.js';
import { registerXsrf } from './plugins/xsrf.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Resolves once background work (emails) started so far has finished. */
    settle(): Promise<void>;
    /** The database the app runs on (tests and operator tooling read it directly). */
    db: Database;
    /** Every service, from the composition root (composition.ts). */
    services: Services;
    /** The billing area's services (prices, checkout, reconciliation, operator). */
    billing: BillingServices;
    /** Every route as registered (method, path pattern): the security suites derive their route lists from it. */
    routeList: readonly RegisteredRoute[];
    /**
     * The first step of a graceful shutdown (server.ts): /api/health answers 503 so that the load
     * balancer stops sending, and every answer closes its connection. Requests are still served.
     */
    drain(): void;
    readonly draining: boolean;
  }
}

export interface RegisteredRoute {
  method: string;
  url: string;
  /** Left out of the OpenAPI document (pages for people, static files). */
  hidden: boolean;
  /** The route's request schemas (zod), hidden routes' too: the hostile suite walks their number fields. */
  schema?: { body?: unknown; querystring?: unknown; params?: unknown };
}

export interface AppDeps {
  db: Database;
  mailer: Mailer;
  limiter: RateLimiter;
  /** Test-only seams (test/crash.test.ts); production passes none. */
  testHooks: ServiceDeps['testHooks'];
  /** Where the log lines go (tests read them to prove a secret never reaches them); stdout when absent. */
  logStream: { write(line: string): void };
}

/**
 * Query parameters whose values never reach the logs: secrets (sign-in and mail tokens, the
 * unsubscribe link's `sig`), and what names a person (an email searched for in the console, the dev
 * mail page's address): logs outlive an account's deletion. A parameter is known by its decoded
 * name, as the query parser reads it: `%73ig=` is `sig=`.
 */
const SECRET_PARAMS = new Set([
  'token',
  't',
  'password',
  'code',
  'otp',
  'secret',
  'key',
  'sig',
  'signature',
  'q',
  'email',
  'to',
]);
function redactQuery(rest: string): string {
  return rest.replace(/([?&#])([^&#=]*)=([^&#]*)/g, (all, sep: string, key: string) => {
    let name = key;
    try {
      name = decodeURIComponent(key.replace(/\+/g, ' '));
    } catch {
      // A malformed escape: judge the raw name.
    }
    return SECRET_PARAMS.has(name.toLowerCase()) ? `${sep}${key}=[redacted]` : all;
  });
}
/**
 * Paths that carry a secret: the stealth subscription (`/api/sub/<secret>`). Matched on the decoded,
 * lower-cased path with repeated slashes folded, so `/api/SUB/…`, `/%61pi/sub/…` or `//api/sub/…`
 * (which the router may or may not resolve) are redacted too: any path with a `sub` segment loses
 * everything after it.
 */
const SECRET_PATH = /\/sub(?:\/|%2f)/i;
function redactPath(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // A malformed escape: judge the raw text.
  }
  if (!SECRET_PATH.test(decoded.replace(/\/{2,}/g, '/')) && !SECRET_PATH.test(path.replace(/\/{2,}/g, '/')))
    return path;
  const at = path.search(/\/(?:s|%73)(?:u|%75)(?:b|%62)(?:\/|%2f)/i);
  return at >= 0 ? `${path.slice(0, at)}/sub/[redacted]` : '[redacted]';
}
export const redactUrl = (url: string) => {
  const q = url.search(/[?#]/);
  const path = q < 0 ? url : url.slice(0, q);
  return redactPath(path) + (q < 0 ? '' : redactQuery(url.slice(q)));
};

/**
 * Builds the whole application without listening: plugins, hooks, routes. Tests call this and
 * use `app.inject`; server.ts adds the listener and the signal handling.
 */
export async function buildApp(config: Config, overrides: Partial<AppDeps> = {}): Promise<FastifyInstance> {
  const db = overrides.db ?? (await openDatabase(config.database));
  await migrate(db);

  const app = Fastify({
    logger: {
      level: config.logLevel,
      ...(overrides.logStream ? { stream: overrides.logStream } : {}),
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'res.headers["set-cookie"]',
          'res.headers.authorization',
        ],
        remove: true,
      },
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
      void (reply as FastifyReply)
        .status(tooLong ? 414 : 400)
        .send({ message: tooLong ? 'The URL is too long.' : 'Malformed URL.' });
    },
  });

  // Collected before any plugin adds a route, so routes added later (static files, docs, modules) are listed too.
  const routeList: RegisteredRoute[] = [];
  app.decorate('routeList', routeList);
  app.addHook('onRoute', (route) => {
    const schema = route.schema as
      { hide?: boolean; body?: unknown; querystring?: unknown; params?: unknown } | undefined;
    const request = schema && { body: schema.body, querystring: schema.querystring, params: schema.params };
    for (const method of [route.method].flat())
      routeList.push({ method, url: route.url, hidden: !!schema?.hide, schema: request });
  });

  // Every service comes from the composition root (composition.ts), as for the CLI.
  const services: Services = await buildServices(config, {
    db,
    mailer: overrides.mailer,
    limiter: overrides.limiter,
    log: app.log,
    testHooks: overrides.testHooks,
  });
  const { brands, origins, captcha, geo, users, billing, providers, sandbox } = services;
  // Before anything is served: sealed data under a secret this configuration lacks is a start-up error naming the setting, never a 500 later.
  await services.secrets.check();
  await seedCatalogue(db, services.catalogue);
  app.decorate('db', db);
  app.decorate('services', services);
  app.decorate('settle', services.settle);

  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  // Requests counted and timed by route pattern; /metrics itself is served only by the metrics listener (server.ts).
  registerHttpMetrics(app, services.metrics);

  // Plain HTML forms post url-encoded bodies (one-click unsubscribe; the sandbox page and the webhooks
  // have their own raw parser). Only the routes in FORM_BODY_ROUTES take them; the others answer 415
  // before parsing (plugins/xsrf.ts).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  await app.register(fastifyCookie);
  await app.register(fastifySwagger, {
    openapi: {
      info: {
        title: 'Warren API',
        version: '0.1.0',
        description: 'Accounts, billing, setup and the VPN control plane.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    transform: jsonSchemaTransform,
  });
  // Off in production unless API_DOCS=true; when on, its pages carry their own hash-based CSP (staticCSP).
  if (config.apiDocs) await app.register(fastifySwaggerUi, { routePrefix: '/api/docs', staticCSP: true });

  // Security headers on every answer (helmet), with the Content-Security-Policy of the Host's brand.
  const captchaHosts =
    new Map<string, string[]>([
      ['none', []],
      ['recaptcha', ['https://www.google.com', 'https://www.gstatic.com']],
      ['turnstile', ['https://challenges.cloudflare.com']],
    ]).get(config.captcha.provider) ?? [];
  const scriptHostsOf = (host: string | undefined) => [
    ...new Set(brands.forHost(host).scripts.map((s) => new URL(s.src).origin)),
  ];
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        // One value per request: the brand's script hosts follow the Host header, parsed strictly (a malformed or unknown one gets the first brand's; an empty list adds nothing).
        scriptSrc: [(req) => ["'self'", ...captchaHosts, ...scriptHostsOf(req.headers.host)].join(' ')],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: [(req) => ["'self'", ...scriptHostsOf(req.headers.host)].join(' ')],
        frameSrc: ["'self'", ...captchaHosts],
        frameAncestors: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        objectSrc: ["'none'"],
      },
    },
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    // Browsers remember HTTPS for a year; outside production the app runs on plain http://localhost.
    strictTransportSecurity: config.isProduction ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    // Payment pages open in popups and report back with postMessage (sandbox, 3-D Secure): keep the opener.
    crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
    // Logos and images are loaded by mail clients from other origins.
    crossOriginResourcePolicy: false,
  });
  // After helmet, so that a refused Host (400) still carries the security headers.
  registerBrandResolution(app, brands);
  // Right after the brand: a restricted host refuses a clear bearer header before anything else runs.
  const envelopeGate = registerRestrictedHostGate(app);
  registerBrowserId(app, config.isProduction);
  await registerXsrf(app, config.appSecret, config.isProduction);
  // After the XSRF plugin, so that the envelope's POST is checked like every other.
  registerRestrictedEnvelope(app, envelopeGate, { bodyLimit: config.bodyLimit });
  let draining = false;
  app.decorate('drain', () => void (draining = true));
  app.decorate('draining', { getter: () => draining });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // Leaving: a client's next request opens a new connection, which the balancer sends elsewhere.
    if (draining) reply.header('connection', 'close');
  });

  const brandOf = (request: FastifyRequest): PublicBrand =>
    toPublicBrand(request.brand, {
      captcha: { provider: config.captcha.provider, siteKey: config.captcha.siteKey ?? null },
      testAccountSuffixes: config.testAccountSuffixes,
      redirectHosts: brands.all().flatMap((b) => b.hosts),
    });

  const auth = requireUser(users);
  /** Public calls that say more to a signed-in member; a bad or missing token just means anonymous. */
  const optionalUser = async (request: FastifyRequest) => {
    const token = request.headers.authorization?.replace(/^Bearer\s+/i, '');
    return token ? (await users.authenticate(token).catch(() => undefined))?.user : undefined;
  };

  await app.register(systemRoutes, {
    db,
    mailer: services.mailer,
    devTools: !config.isProduction,
    brandOf,
    healthCacheMs: config.healthCacheMs,
    draining: () => draining,
  });
  await app.register(usersRoutes, { users, origins, captcha, auth });
  await app.register(vpnModule, { vpn: services.vpn, auth, countryOf: (ip: string) => geo.country(ip) });
  await app.register(openvpnSocks5Module, {
    openvpnSocks5: services.vpn.openvpnSocks5,
    pki: services.vpn.pki,
    auth,
    authenticateNode: services.vpn.nodes.authenticate,
  });
  await app.register(stealthModule, { stealth: services.stealth, auth });

  await app.register(featuresRoutes, { features: services.features, auth });
  await app.register(profileRoutes, {
    profiles: services.profiles,
    auth,
    context: (request) => contextOf(request, origins),
  });
  await app.register(passkeyRoutes, {
    passkeys: services.customerPasskeys,
    auth,
    context: (request) => contextOf(request, origins),
  });
  await app.register(affiliateRoutes, { affiliate: services.affiliate, origins, auth, optionalUser });
  await app.register(rewardsRoutes, { rewards: services.rewards, origins, auth });
  await app.register(geoRoutes, { geo, currencyFor: billing.prices.currencyFor });

  // The sandbox notifies us through the full HTTP stack (routing, raw body, signature check), as a provider would.
  const deliverSandbox = async (body: string, signature: string) =>
    (
      await app.inject({
        method: 'POST',
        url: '/api/billing/webhooks/sandbox',
        headers: { 'content-type': 'application/json', 'sandbox-signature': signature },
        payload: body,
      })
    ).statusCode;
  app.decorate('billing', billing);
  await app.register(billingRoutes, {
    billing,
    optionalUser,
    origins,
    captcha,
    geo,
    auth,
    secureCookies: config.isProduction,
    availableProviders: Object.keys(providers) as PaymentProviderId[],
  });
  await app.register(staffModule, {
    staff: services.staff,
    secureCookies: config.isProduction,
    passkeys: {
      passkeys: services.passkeys,
      users,
      security: services.security,
      limiter: services.limiter,
      rpOf: (request) => {
        const ctx = contextOf(request, origins);
        return relyingPartyOf(ctx.origin, ctx.brand.productName);
      },
      contextOf: (request) => contextOf(request, origins),
    },
  });
  await app.register(webhookRoutes, {
    reconciliation: countRejectedWebhooks(billing.reconciliation, services.metrics),
    sandbox,
    deliverSandbox,
    providerIds: new Set(Object.keys(providers)),
  });
  // Scheduled and retried jobs (pg-boss; modules/billing/jobs.ts); stopped by services.close().
  // Started once the app is ready: a job due at start (a sandbox webhook) goes through the app
  // itself (app.inject), which cannot run while routes are still being registered (issue 20).
  if (config.jobs) app.addHook('onReady', async () => services.jobs.startWorkers({ deliverSandbox, log: app.log }));

  const sendIndex = await registerSpa(app, config.webDistDir, brandOf, { secureCookies: config.isProduction });
  app.setNotFoundHandler((request, reply) => {
    if (sendIndex && request.method === 'GET' && !isReservedPath(request.url)) {
      return sendIndex(request, reply);
    }
    return reply.status(404).send({ message: 'Not found.' });
  });

  app.addHook('onClose', async () => {
    await services.close();
    if (!overrides.db) await db.close();
  });

  return app;
}
