import { brandOrigins } from './brands/origins.js';
import { type BrandRegistry, loadBrandRegistry } from './brands/registry.js';
import { withLinkGuard } from './mail/link-guard.js';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { createCaptchaVerifier } from './lib/captcha.js';
import { createGeoIp } from './lib/geoip.js';
import { keyringOf } from './lib/keyring.js';
import { createMetrics, initialiseKnownLabels, sqlOperation } from './lib/metrics.js';
import {
  type RateLimiter,
  createDatabaseRateLimiter,
  createMemoryRateLimiter,
  createRedisRateLimiter,
} from './lib/rate-limit.js';
import { type Mailer, createMailer, withMailLog } from './mail/mailer.js';
import { affiliateService, eraseAffiliateData } from './modules/affiliate/index.js';
import {
  type BillingTestHooks,
  billingErasure,
  billingServices,
  jobEngine,
  readCatalogue,
} from './modules/billing/index.js';
import { eraseFeatureSwitches, featuresService } from './modules/ad-blocker/index.js';
import { eraseServiceCredentials, eraseWireguardData, vpnServices } from './modules/nodes/index.js';
import { profileService } from './modules/profile/index.js';
import { eraseRewardsData, rewardsService } from './modules/rewards/index.js';
import { eraseStaffData, logMail, staffRepository, staffService } from './modules/staff/index.js';
import { eraseStealthData, stealthService } from './modules/stealth/index.js';
import { secretsService } from './modules/secrets/index.js';
import { systemRepository } from './modules/system/index.js';
import { accountErasure, perIpRules, securityMails, usersService } from './modules/users/index.js';
import { customerPasskeys, erasePasskeyData, passkeySecondFactor, passkeysService } from './modules/passkeys/index.js';
import { buildProviders } from './payments/index.js';

export interface ServiceDeps {
  /** An open, migrated database. */
  db: Database;
  /** Defaults: built from config (SMTP or the outbox; Redis when REDIS_URL is set, else in memory). */
  mailer?: Mailer;
  limiter?: RateLimiter;
  /** Where background failures and a lost Redis are reported (the app's logger; the CLI prints nothing). */
  log?: {
    warn: (obj: object, msg: string) => void;
    error: (obj: object, msg: string) => void;
    info?: (obj: object, msg: string) => void;
  };
  /** Test-only seams (test/crash.test.ts); production passes none. */
  testHooks?: { billing?: BillingTestHooks };
}

/**
 * The composition root: every service of the API, built once from the configuration. The HTTP
 * app (app.ts), the CLI (cli/*.ts), the jobs (started by app.ts with these services) and the
 * benchmarks (through buildApp) all get their services here, so a payment applied by the API
 * and a support grant from `npx warren billing grant` run the same hooks.
 */
export async function buildServices(config: Config, deps: ServiceDeps) {
  const { db } = deps;
  const brands: BrandRegistry = loadBrandRegistry(config.brandsFile);
  // Where every link the server writes points (brands/origins.ts): the registry and the configuration, never a request's Host.
  const origins = brandOrigins(brands, {
    publicUrl: config.publicUrl,
    isProduction: config.isProduction,
    port: config.port,
  });
  // Links in mails, the console and the stealth subscription URL: the member's brand's canonical origin.
  const originOf = (id: string) => origins.canonical(brands.byId(id) ?? brands.all()[0]!);
  // Every mail to an account is logged (kind and time) for the operator console's customer view; a mail
  // linking anywhere but a brand's origin is refused before it goes out (mail/link-guard.ts).
  const guarded = withLinkGuard(deps.mailer ?? createMailer(config.mail), origins.isTrusted, (err) => {
    metrics.mailsRefused.inc();
    deps.log?.error({ err }, 'mail with a foreign link refused');
  });
  const mailer = withMailLog(
    guarded,
    (to, kind) => logMail(db, to, kind),
    (err) => deps.log?.warn({ err }, 'mail log failed'),
  );
  // Sign-in, reset and sign-up budgets are one budget over every instance (README: Faults): Redis when
  // set, else PostgreSQL's rate_limits table, which is also where Redis's counts go while it is
  // unreachable. Only the embedded database (one process by construction) counts in memory.
  const shared = db.kind === 'postgres' ? createDatabaseRateLimiter(db) : createMemoryRateLimiter();
  const limiter =
    deps.limiter ??
    (config.redisUrl
      ? createRedisRateLimiter(
          config.redisUrl,
          (err) =>
            deps.log?.warn(
              { err },
              db.kind === 'postgres'
                ? 'Redis unreachable: rate limits counted in the database'
                : 'Redis unreachable: rate limits counted in this instance only',
            ),
          undefined,
          shared,
        )
      : shared);

  // Work a request starts but does not wait for (emails): shutdown drains it before closing the database.
  const pending = new Set<Promise<unknown>>();
  const defer = (task: () => Promise<unknown>) => {
    const p = task()
      .catch((err) => deps.log?.error({ err }, 'background task failed'))
      .finally(() => pending.delete(p));
    pending.add(p);
  };
  const settle = async () => {
    while (pending.size) await Promise.allSettled([...pending]);
  };

  // Prometheus metrics (lib/metrics.ts), served by the metrics listener only (plugins/metrics.ts). Other
  // areas add theirs here (e.g. job queue depth: metrics.scrapeGauge, or a prom-client Counter on metrics.registry).
  const metrics = createMetrics({
    activeSubscriptions: () => systemRepository(db).activeSubscriptions(),
    staffAuditHead: async () => Number((await staffRepository(db).auditHead()).seq),
    // pg-boss's own counts (refreshed by its monitor), where this instance runs the job engine; scrapes come after app.ts started it.
    jobQueues: config.jobs
      ? async () =>
          (await (await jobs.boss()).getQueues()).flatMap((q) =>
            (['ready', 'deferred', 'blocked', 'active', 'failed'] as const).map((state) => ({
              queue: q.name,
              state,
              count: Number(q[`${state}Count`] ?? 0),
            })),
          )
      : undefined,
    // The stealth cores as the nodes last reported them (read at scrape time, after vpn below is built).
    stealthNodes: async () =>
      (await vpn.stealthNodes.nodeGauges()).map((n) => ({
        node: n.node,
        up: n.up,
        version: n.version,
        users: n.users,
        certNotAfterS: n.cert_not_after_s,
      })),
    nodeStates: () => vpn.nodes.states(),
  });
  const stopObservingQueries = db.observeQueries((sql, seconds, ok) =>
    metrics.dbDuration.observe({ operation: sqlOperation(sql), outcome: ok ? 'ok' : 'error' }, seconds),
  );

  const brandName = (id: string) => brands.byId(id)?.productName ?? brands.all()[0]!.productName;
  const catalogue = readCatalogue(config.billing.catalogueFile);
  // The sandbox's hosted page lives on this server; its links use the public URL or the first brand host.
  const sandboxBase = () => origins.canonical(brands.all()[0]!);
  const { providers, sandbox } = buildProviders(config, db, sandboxBase);
  initialiseKnownLabels(metrics, {
    brands: brands.all().map((b) => b.id),
    providers: Object.keys(providers),
    renewalProviders: Object.entries(providers)
      .filter(([, p]) => p?.chargeSaved)
      .map(([id]) => id),
  });

  // APP_SECRET, OPENVPN_CA_SECRET and the replaced ones (lib/keyring.ts): what seals and signs, and what still opens.
  const keys = keyringOf(config);
  const geo = await createGeoIp(config.geoip.mmdbFile, config.geoip.defaultCountry);
  const security = securityMails({ db, mailer, limiter, defer, appSecrets: keys.appSecrets(), countryOf: geo.known });
  // Account deletion: every area's part in one transaction (README: the data map), then the providers and the outbox forget.
  const erasure = accountErasure({
    db,
    parts: [
      eraseWireguardData,
      eraseServiceCredentials,
      eraseFeatureSwitches,
      eraseAffiliateData,
      eraseRewardsData,
      eraseStaffData,
      eraseStealthData,
      erasePasskeyData,
      billingErasure(providers),
    ],
    forgetMail: mailer.forget ? (email) => mailer.forget!(email) : undefined,
    log: deps.log,
  });
  // Passkeys (issue 23): the WebAuthn part, then the customer's flows on top of the accounts service.
  const passkeys = passkeysService({ db, limiter, appSecret: config.appSecret });
  const users = usersService({
    db,
    keys,
    tokens: config.tokens,
    perIpLimits: config.perIpLimits,
    captchaProvider: config.captcha.provider,
    mailer,
    limiter,
    defer,
    metrics,
    security,
    erasure,
    passkeyFactor: passkeySecondFactor(passkeys),
  });
  const rewards = rewardsService(db, { daysPerFriend: config.rewardDays });
  const billing = billingServices({
    db,
    catalogue,
    providers,
    mailer,
    defer,
    moneyBackDays: config.billing.moneyBackDays,
    postbackUrls: config.billing.postbackUrls,
    isKnownHost: brands.isKnownHost,
    brandName,
    brandOf: (id: string) => brands.byId(id) ?? brands.all()[0]!,
    secret: config.appSecret,
    // After every applied payment, from a provider or a support grant (operator.ts says what a grant earns).
    onPaymentApplied: (payment, firstPurchase) => {
      metrics.payments.inc({ provider: payment.provider, outcome: 'applied' });
      return rewards.onPaymentApplied(payment, firstPurchase);
    },
    onPaymentOutcome: (payment, outcome) => metrics.payments.inc({ provider: payment.provider, outcome }),
    onRenewal: (provider, outcome) => metrics.renewals.inc({ provider, outcome }),
    testHooks: deps.testHooks?.billing,
    log: deps.log,
    renewals: {
      leadDays: config.billing.renewalLeadDays,
      retryDays: config.billing.renewalRetryDays,
      // Mail links: the member's brand's canonical origin (brands/origins.ts); a receipt the host the customer paid on, when trusted.
      originOf,
      isTrustedOrigin: origins.isTrusted,
      autoRenewDefault: (id: string) => (brands.byId(id) ?? brands.all()[0]!).autoRenewDefault,
      notifyUrl: (provider: string) => `${sandboxBase()}/api/billing/webhooks/${provider}`,
    },
  });

  const vpn = vpnServices({ db, vpn: config.vpn, keys, log: deps.log, mail: { mailer, originOf, brandName } });

  // The job engine (pg-boss on this database): renewals, mails, postbacks, sandbox webhooks, WireGuard key reminders. Started lazily; app.ts starts its workers when JOBS is on.
  const jobs = jobEngine({
    db,
    database: config.database,
    renewals: billing.renewals,
    reconciliation: billing.reconciliation,
    sandbox,
    renewConcurrency: config.renewConcurrency,
    wgKeyReminders: vpn.wgKeyReminders,
  });

  // Stealth protocols (issue 21): credentials, links and the subscription URL; the nodes' side lives in the VPN area.
  const stealth = stealthService({
    db,
    keys: vpn.stealthKeys,
    limiter,
    originOf,
    brandName,
    onlineSeconds: config.vpn.nodeOnlineSeconds,
    published: () => vpn.nodes.publish(),
  });
  // The operator console (issue 15): the same billing, VPN and job services as the CLI's.
  const staff = staffService({
    db,
    keys,
    limiter,
    brands,
    users,
    erasure,
    billing,
    vpn,
    stealth,
    jobs,
    moneyBackDays: config.billing.moneyBackDays,
    loginPerIp: config.perIpLimits.login,
    metrics,
    log: deps.log,
    originOf,
    security,
  });

  return {
    config,
    db,
    brands,
    origins,
    brandName,
    mailer,
    limiter,
    defer,
    /** Resolves once background work (emails) started so far has finished. */
    settle,
    captcha: createCaptchaVerifier(config.captcha),
    geo,
    catalogue,
    providers,
    sandbox,
    users,
    /** Security notices (two-factor, passkeys, new browsers). */
    security,
    /** Passkeys: the WebAuthn core (the operator console's too) and the customer's flows. */
    passkeys,
    customerPasskeys: customerPasskeys({
      passkeys,
      users,
      security,
      limiter,
      loginPerIp: perIpRules(config.perIpLimits).login,
      changed: (user, change, ctx) => staff.profilePasskeyChanged(user, change, ctx),
    }),
    profiles: profileService({
      db,
      keys,
      mailer,
      limiter,
      defer,
      productName: brandName,
      security,
      endStaffSessions: (userId) => staffRepository(db).endSessionsOf(userId),
    }),
    features: featuresService(db),
    affiliate: affiliateService(db, {
      commissionPercent: config.affiliateCommissionPercent,
      portalUrl: (u) => (u.is_post_affiliate_available ? (brands.byId(u.brand)?.affiliatePortalUrl ?? null) : null),
    }),
    rewards,
    billing,
    jobs,
    /** Prometheus metrics: the registry and the API's counters, histograms and scrape-time gauges. */
    metrics,
    /** The VPN area: locations, devices, the node API, OpenVPN/SOCKS5 services, the operator's node commands. */
    vpn,
    /** Stealth protocols (VLESS/Trojan): the customer's credentials, links and subscription. */
    stealth,
    /** Secret rotation: the start-up check of sealed data's keys (app.ts), `npx warren secrets status|reseal`. */
    secrets: secretsService({ db, keys }),
    /** The operator console: staff sessions, the customer view and actions, the audit log, roles (CLI). */
    staff,
    /** Drains background work and closes what the services opened (mail transport, Redis); the database stays open. */
    async close() {
      await jobs.stop();
      await settle();
      stopObservingQueries();
      vpn.watcher.close();
      mailer.close();
      await limiter.close();
    },
  };
}
export type Services = Awaited<ReturnType<typeof buildServices>>;
