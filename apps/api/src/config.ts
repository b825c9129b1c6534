import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { NODE_HIGH_WATER_PERCENT } from '@warren/contract';
import { type Pools, parsePools } from './modules/wireguard/index.js';
import { repoRoot } from './paths.js';

/**
 * Every environment variable the API reads, validated once at start-up. Defaults give the
 * embedded, no-services setup (PGlite, outbox mail, captcha none, sandbox payments).
 */
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const V4_POOL = '10.64.0.0/10';
const V6_POOL = 'fd77:6172:7265::/48';
/** A pool is checked on its own field, so its problem is listed with every other bad variable. */
const poolCheck = (parse: (v: string) => unknown) =>
  z.superRefine<string>((v, ctx) => {
    try {
      parse(v);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
    }
  });

const schema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    /** Listen on this unix socket instead of HOST:PORT (a reverse proxy or a node agent on the same machine). */
    LISTEN_SOCKET: z.string().min(1).optional(),
    /** The operator's admin channel (README: Operating Warren): a unix socket, `off` for none. Default: admin.sock in DATA_DIR. */
    ADMIN_SOCKET: z.string().min(1).optional(),
    DATA_DIR: z.string().min(1).default('./data'),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
      .optional(),
    DATABASE_SCHEMA: z
      .string()
      .regex(/^[a-z_][a-z0-9_]*$/, 'must be a lower-case SQL identifier')
      .optional(),
    PUBLIC_URL: z.url().optional(),
    APP_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    /** Encrypts the OpenVPN CA key, node keys and service passwords at rest; defaults to APP_SECRET. */
    OPENVPN_CA_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    /**
     * Secrets replaced by a rotation (old APP_SECRET or OPENVPN_CA_SECRET values), separated by
     * spaces: they only open what they sealed, until `npx warren secrets reseal` (README: Rotating secrets).
     */
    APP_SECRET_PREVIOUS: z
      .string()
      .transform((v) => v.split(/\s+/).filter(Boolean))
      .refine((list) => list.every((s) => s.length >= 32), 'each secret must be at least 32 characters')
      .refine((list) => new Set(list).size === list.length, 'lists the same secret twice')
      .default([]),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    BRANDS_FILE: z.string().optional(),
    MAIL_URL: z
      .string()
      .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
      .optional(),
    MAIL_FROM: z.string().default('Warren <no-reply@warren.localhost>'),
    MAIL_IGNORE_TLS: bool.default(false),
    CAPTCHA_PROVIDER: z.enum(['none', 'recaptcha', 'turnstile']).optional(),
    CAPTCHA_SECRET: z.string().optional(),
    CAPTCHA_SITE_KEY: z.string().optional(),
    CAPTCHA_VERIFY_URL: z.url().optional(),
    ALLOW_NO_CAPTCHA_IN_PRODUCTION: bool.default(false),
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//, 'must be a redis:// URL')
      .optional(),
    TRUST_PROXY: bool.default(false),
    TOKEN_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
    TOKEN_ROTATE_AFTER_MINUTES: z.coerce
      .number()
      .int()
      .min(1)
      .default(24 * 60),
    TOKEN_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
    BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(65_536),
    TEST_ACCOUNT_SUFFIXES: z.string().default('@test.warren.invalid'),
    CATALOGUE_FILE: z.string().optional(),
    SANDBOX_PAYMENTS: bool.optional(),
    /** Serve the OpenAPI document and its UI at /api/docs (default: everywhere but production). */
    API_DOCS: bool.optional(),
    STRIPE_SECRET_KEY: z
      .string()
      .regex(/^(sk|rk)_/, 'must be a Stripe secret key (sk_…)')
      .optional(),
    STRIPE_PUBLISHABLE_KEY: z.string().regex(/^pk_/, 'must be a Stripe publishable key (pk_…)').optional(),
    STRIPE_WEBHOOK_SECRET: z
      .string()
      .regex(/^whsec_/, 'must be a Stripe webhook secret (whsec_…)')
      .optional(),
    STRIPE_API_URL: z.url().optional(),
    PAYSSION_API_KEY: z.string().min(1).optional(),
    PAYSSION_SECRET_KEY: z.string().min(1).optional(),
    PAYSSION_API_URL: z.url().default('https://www.payssion.com'),
    CARDLINK_API_TOKEN: z.string().min(1).optional(),
    CARDLINK_SHOP_ID: z.string().min(1).optional(),
    CARDLINK_API_URL: z.url().default('https://cardlink.link'),
    POSTBACK_URLS: z.string().default(''),
    GEOIP_MMDB: z.string().optional(),
    DEFAULT_COUNTRY: z
      .string()
      .regex(/^[A-Z]{2}$/, 'must be a 2-letter country code')
      .default('US'),
    MONEY_BACK_DAYS: z.coerce.number().int().min(0).max(90).default(7),
    RENEWAL_LEAD_DAYS: z.coerce.number().int().min(1).max(14).default(3),
    /** Days after a refused renewal was due that it is tried again, ascending (each before the plan ends: below the lead). */
    RENEWAL_RETRY_DAYS: z
      .string()
      .default('1,2')
      .transform((v) =>
        v
          .split(',')
          .map((d) => d.trim())
          .filter(Boolean)
          .map(Number),
      )
      .refine(
        (days) =>
          days.length <= 10 && days.every((d, i) => Number.isInteger(d) && d >= 1 && (i === 0 || d > days[i - 1]!)),
        'must be ascending whole days, e.g. 1,2',
      ),
    JOBS: bool.default(true),
    JOBS_RENEW_CONCURRENCY: z.coerce.number().int().min(1).max(5).default(4),
    LIMIT_LOGIN_PER_IP: z.coerce.number().int().min(1).default(60),
    LIMIT_REGISTER_PER_IP: z.coerce.number().int().min(1).default(20),
    LIMIT_RESET_PER_IP: z.coerce.number().int().min(1).default(20),
    /** The Prometheus listener (plugins/metrics.ts): off unless set; 0 picks a free port. */
    METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    /** A file holding the bearer token a scrape must send (required when METRICS_HOST is not a loopback address). */
    METRICS_TOKEN_FILE: z.string().min(1).optional(),
    HEALTH_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
    /**
     * On SIGTERM, how long /api/health answers 503 while the instance still serves, so that the load
     * balancer takes it out before it stops accepting (README: Faults). Default: 5 s in production, 0 elsewhere.
     */
    SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).max(120_000).optional(),
    /** The most a shutdown may take, from the signal to the exit; past it the process exits 1 with requests still open. */
    SHUTDOWN_GRACE_MS: z.coerce.number().int().min(1000).max(600_000).default(25_000),
    REWARD_DAYS: z.coerce.number().int().min(0).max(365).default(30),
    AFFILIATE_COMMISSION_PERCENT: z.coerce.number().int().min(0).max(100).default(25),
    // The VPN area.
    WG_DEVICE_LIMIT_FREE: z.coerce.number().int().min(0).max(1000).default(1),
    WG_DEVICE_LIMIT_PAID: z.coerce.number().int().min(0).max(1000).default(10),
    WG_IPV4_POOL: z
      .string()
      .default(V4_POOL)
      .check(poolCheck((v) => parsePools(v, V6_POOL))),
    WG_IPV6_POOL: z
      .string()
      .default(V6_POOL)
      .check(poolCheck((v) => parsePools(V4_POOL, v))),
    /** Resolvers pushed in configs; default: the node itself (each node runs a resolver on its tunnel address). */
    WG_DNS: z.string().optional(),
    WG_ALLOWED_IPS: z.string().default('0.0.0.0/0, ::/0'),
    /** A node that has not reported for this long counts as offline (no load shown, not preferred). */
    NODE_ONLINE_SECONDS: z.coerce.number().int().min(10).default(120),
    /** How often a waiting long poll re-reads the change log (changes made by other API instances). */
    VPN_CHANGE_POLL_MS: z.coerce.number().int().min(50).max(10_000).default(1000),
    VPN_NODE_HIGH_WATER_PERCENT: z.coerce.number().int().min(1).max(100).default(NODE_HIGH_WATER_PERCENT),
    VPN_SEED: bool.default(true),
    LOCATIONS_FILE: z.string().optional(),
    DOWNLOADS_FILE: z.string().optional(),
  })
  .superRefine((c, ctx) => {
    if (c.SHUTDOWN_DELAY_MS !== undefined && c.SHUTDOWN_DELAY_MS >= c.SHUTDOWN_GRACE_MS)
      ctx.addIssue({
        code: 'custom',
        path: ['SHUTDOWN_DELAY_MS'],
        message: 'must be shorter than SHUTDOWN_GRACE_MS (the whole shutdown)',
      });
    try {
      parsePools(c.WG_IPV4_POOL, c.WG_IPV6_POOL); // the two together (each alone was checked on its field)
    } catch (err) {
      ctx.addIssue({ code: 'custom', path: ['WG_IPV4_POOL'], message: (err as Error).message });
    }
    if (c.NODE_ENV === 'production') {
      if (!c.APP_SECRET) ctx.addIssue({ code: 'custom', path: ['APP_SECRET'], message: 'is required in production' });
    }
    // A secret in use listed as replaced is a rotation half done (APP_SECRET not changed, or changed back).
    for (const [name, value] of [
      ['APP_SECRET', c.APP_SECRET],
      ['OPENVPN_CA_SECRET', c.OPENVPN_CA_SECRET],
    ] as const) {
      if (value && c.APP_SECRET_PREVIOUS.includes(value))
        ctx.addIssue({
          code: 'custom',
          path: ['APP_SECRET_PREVIOUS'],
          message: `holds the current ${name}: list only the secrets it replaced`,
        });
    }
    if (c.APP_SECRET_PREVIOUS.length && !c.APP_SECRET)
      ctx.addIssue({
        code: 'custom',
        path: ['APP_SECRET_PREVIOUS'],
        message: 'needs APP_SECRET (the secret that replaced them)',
      });
    if (c.NODE_ENV === 'production') {
      const provider = c.CAPTCHA_PROVIDER ?? 'none';
      if (provider === 'none' && !c.ALLOW_NO_CAPTCHA_IN_PRODUCTION)
        ctx.addIssue({
          code: 'custom',
          path: ['CAPTCHA_PROVIDER'],
          message:
            'is none in production; set recaptcha or turnstile, or ALLOW_NO_CAPTCHA_IN_PRODUCTION=true to run without one',
        });
      // The sandbox's hosted page has a Pay button that takes no money: in production it would give plans away.
      if (c.SANDBOX_PAYMENTS === true)
        ctx.addIssue({
          code: 'custom',
          path: ['SANDBOX_PAYMENTS'],
          message:
            'cannot be true in production: the sandbox provider takes no money (configure Stripe, Payssion or Cardlink)',
        });
    }
    // A retry on or after the plan's end never runs (renewals stop when the plan ends): refuse a schedule that promises one.
    const late = c.RENEWAL_RETRY_DAYS.find((d) => d >= c.RENEWAL_LEAD_DAYS);
    if (late !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['RENEWAL_RETRY_DAYS'],
        message: `has ${late}, not before the plan ends (RENEWAL_LEAD_DAYS is ${c.RENEWAL_LEAD_DAYS}): every retry must be fewer days after the renewal than the lead`,
      });
    const stripeKeys = [c.STRIPE_SECRET_KEY, c.STRIPE_PUBLISHABLE_KEY, c.STRIPE_WEBHOOK_SECRET].filter(Boolean).length;
    if (stripeKeys > 0 && stripeKeys < 3)
      ctx.addIssue({
        code: 'custom',
        path: ['STRIPE_SECRET_KEY'],
        message: 'Stripe needs STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY and STRIPE_WEBHOOK_SECRET together',
      });
    if (!!c.PAYSSION_API_KEY !== !!c.PAYSSION_SECRET_KEY)
      ctx.addIssue({
        code: 'custom',
        path: ['PAYSSION_SECRET_KEY'],
        message: 'Payssion needs PAYSSION_API_KEY and PAYSSION_SECRET_KEY together',
      });
    if (!!c.CARDLINK_API_TOKEN !== !!c.CARDLINK_SHOP_ID)
      ctx.addIssue({
        code: 'custom',
        path: ['CARDLINK_SHOP_ID'],
        message: 'Cardlink needs CARDLINK_API_TOKEN and CARDLINK_SHOP_ID together',
      });
    // Metrics name routes, plans and payment figures: beyond this machine only with a credential.
    if (c.METRICS_PORT !== undefined && !LOOPBACK.has(c.METRICS_HOST) && !c.METRICS_TOKEN_FILE)
      ctx.addIssue({
        code: 'custom',
        path: ['METRICS_TOKEN_FILE'],
        message: `is required when METRICS_HOST (${c.METRICS_HOST}) is not a loopback address`,
      });
    if (c.METRICS_TOKEN_FILE) {
      let token = '';
      try {
        token = fs.readFileSync(path.resolve(c.METRICS_TOKEN_FILE), 'utf8').trim();
      } catch (err) {
        ctx.addIssue({
          code: 'custom',
          path: ['METRICS_TOKEN_FILE'],
          message: `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
        });
      }
      if (token && token.length < 16)
        ctx.addIssue({
          code: 'custom',
          path: ['METRICS_TOKEN_FILE'],
          message: 'must hold a token of at least 16 characters',
        });
      if (!token && fs.existsSync(path.resolve(c.METRICS_TOKEN_FILE)))
        ctx.addIssue({ code: 'custom', path: ['METRICS_TOKEN_FILE'], message: 'is empty' });
    }
    if (c.CAPTCHA_PROVIDER && c.CAPTCHA_PROVIDER !== 'none' && !c.CAPTCHA_SECRET)
      ctx.addIssue({
        code: 'custom',
        path: ['CAPTCHA_SECRET'],
        message: `is required with CAPTCHA_PROVIDER=${c.CAPTCHA_PROVIDER}`,
      });
  });

export type Env = z.infer<typeof schema>;

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** Settings of the VPN area (devices, nodes, locations). */
export interface VpnConfig {
  deviceLimit: { free: number; paid: number };
  pools: Pools;
  dns: string[];
  allowedIps: string[];
  nodeOnlineSeconds: number;
  changePollMs: number;
  /**
   * A node whose WireGuard peers reached this share of its cap (or that refuses peers) is named in no
   * new configuration and takes no new device (issue 22); the slack covers devices added between reports.
   */
  highWaterPercent: number;
  seed: boolean;
  /**
   * Outside production: seeded locations get a demo node each (marked demo), and a location whose
   * enabled nodes have not reported yet is still offered. In production a location is offered only
   * with an enabled node that has reported, and no placeholder nodes are seeded.
   */
  demoNodes: boolean;
  locationsFile: string;
  downloadsFile: string;
}

export interface Config {
  env: Env['NODE_ENV'];
  isProduction: boolean;
  host: string;
  port: number;
  /** A unix socket to listen on instead of host:port. */
  socket?: string;
  /** The operator's admin channel: a unix socket (0600) and the credential file the CLI sends (cli/remote.ts, admin/channel.ts); undefined: off. */
  admin?: { socket: string; tokenFile: string };
  dataDir: string;
  /** `memory://` keeps PGlite in memory (tests). */
  database:
    { kind: 'pglite'; dataDir: string; templateFile?: string } | { kind: 'postgres'; url: string; schema?: string };
  publicUrl?: string;
  appSecret: string;
  /** OPENVPN_CA_SECRET, else the app secret. */
  openvpnCaSecret: string;
  /** APP_SECRET_PREVIOUS: replaced secrets that still open what they sealed (lib/keyring.ts). */
  previousSecrets: string[];
  logLevel: Env['LOG_LEVEL'];
  brandsFile: string;
  mail: { url?: string; from: string; ignoreTls: boolean; outboxDir: string };
  captcha: { provider: 'none' | 'recaptcha' | 'turnstile'; secret?: string; siteKey?: string; verifyUrl: string };
  redisUrl?: string;
  /** Which proxy hops to trust for the client address: behind a load balancer only the one in front (the address it appended to X-Forwarded-For). */
  trustProxy: false | ((address: string, hop: number) => boolean);
  tokens: { ttlMs: number; rotateAfterMs: number; graceMs: number };
  bodyLimit: number;
  testAccountSuffixes: string[];
  webDistDir: string;
  billing: {
    catalogueFile: string;
    sandbox: boolean;
    stripe?: { secretKey: string; publishableKey: string; webhookSecret: string; apiUrl?: string };
    payssion?: { apiKey: string; secretKey: string; apiUrl: string };
    cardlink?: { apiToken: string; shopId: string; apiUrl: string };
    postbackUrls: string[];
    moneyBackDays: number;
    /** Days before the paid-until date a renewal is charged (issue 13). */
    renewalLeadDays: number;
    renewalRetryDays: number[];
  };
  geoip: { mmdbFile?: string; defaultCountry: string };
  jobs: boolean;
  /** Renewal jobs this instance works at once (at most 5: each holds one of the lock pool's 5 connections, db/client.ts withLock). */
  renewConcurrency: number;
  /** /api/docs (OpenAPI UI and JSON) is served. */
  apiDocs: boolean;
  /** Per-IP budgets: sign-ins per 15 minutes, sign-ups and reset requests per hour. */
  perIpLimits: { login: number; register: number; reset: number };
  healthCacheMs: number;
  /** Graceful shutdown (server.ts): health 503 for delayMs while still serving, everything done within graceMs. */
  shutdown: { delayMs: number; graceMs: number };
  /** The Prometheus listener; undefined: off. */
  metrics?: { host: string; port: number; token?: string };
  rewardDays: number;
  affiliateCommissionPercent: number;
  vpn: VpnConfig;
}

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const DEFAULT_VERIFY_URL = {
  none: '',
  recaptcha: 'https://www.google.com/recaptcha/api/siteverify',
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
} as const;

/**
 * Where the admin channel is, from DATA_DIR and ADMIN_SOCKET alone: the CLI finds a running server
 * with this before reading the rest of the configuration, so an operator's shell needs only the
 * server's DATA_DIR (not its secrets) to run commands on it.
 */
export function adminChannelOf(source: NodeJS.ProcessEnv = process.env): Config['admin'] {
  const dataDir = path.resolve(source.DATA_DIR || './data');
  const socket = source.ADMIN_SOCKET || undefined;
  if (socket === 'off') return undefined;
  return {
    socket: socket ? path.resolve(socket) : path.join(dataDir, 'admin.sock'),
    tokenFile: path.join(dataDir, 'admin.token'),
  };
}

/** Reads and validates the environment; throws ConfigError listing every bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = schema.safeParse(Object.fromEntries(Object.entries(source).filter(([, v]) => v !== '')));
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`));
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR);
  const provider = e.CAPTCHA_PROVIDER ?? 'none';
  const config: Config = {
    env: e.NODE_ENV,
    isProduction: e.NODE_ENV === 'production',
    host: e.HOST,
    port: e.PORT,
    socket: e.LISTEN_SOCKET ? path.resolve(e.LISTEN_SOCKET) : undefined,
    admin: adminChannelOf({ DATA_DIR: e.DATA_DIR, ADMIN_SOCKET: e.ADMIN_SOCKET }),
    dataDir,
    database: e.DATABASE_URL
      ? { kind: 'postgres', url: e.DATABASE_URL, schema: e.DATABASE_SCHEMA }
      : { kind: 'pglite', dataDir: path.join(dataDir, 'pglite') },
    publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ''),
    // Outside production a fixed development secret keeps tokens valid across restarts; production requires APP_SECRET.
    appSecret: e.APP_SECRET ?? 'warren-development-secret-do-not-use-in-production',
    openvpnCaSecret: e.OPENVPN_CA_SECRET ?? e.APP_SECRET ?? 'warren-development-secret-do-not-use-in-production',
    previousSecrets: e.APP_SECRET_PREVIOUS,
    logLevel: e.LOG_LEVEL,
    brandsFile: e.BRANDS_FILE ? path.resolve(e.BRANDS_FILE) : path.join(repoRoot, 'config/brands.json'),
    mail: { url: e.MAIL_URL, from: e.MAIL_FROM, ignoreTls: e.MAIL_IGNORE_TLS, outboxDir: path.join(dataDir, 'outbox') },
    captcha: {
      provider,
      secret: e.CAPTCHA_SECRET,
      siteKey: e.CAPTCHA_SITE_KEY,
      verifyUrl: e.CAPTCHA_VERIFY_URL ?? DEFAULT_VERIFY_URL[provider],
    },
    redisUrl: e.REDIS_URL,
    // One hop, not "trust every hop": with the latter the left-most X-Forwarded-For entry, which the client writes, would be its address (and fresh rate-limit budgets).
    trustProxy: e.TRUST_PROXY ? (_address: string, hop: number) => hop < 1 : false,
    tokens: {
      ttlMs: e.TOKEN_TTL_DAYS * 86_400_000,
      rotateAfterMs: e.TOKEN_ROTATE_AFTER_MINUTES * 60_000,
      graceMs: e.TOKEN_GRACE_SECONDS * 1000,
    },
    bodyLimit: e.BODY_LIMIT_BYTES,
    testAccountSuffixes: e.TEST_ACCOUNT_SUFFIXES.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    webDistDir: path.join(repoRoot, 'apps/web/dist'),
    billing: {
      catalogueFile: e.CATALOGUE_FILE ? path.resolve(e.CATALOGUE_FILE) : path.join(repoRoot, 'config/catalogue.json'),
      // The sandbox takes no money; it is on by default everywhere but production.
      sandbox: e.SANDBOX_PAYMENTS ?? e.NODE_ENV !== 'production',
      stripe: e.STRIPE_SECRET_KEY
        ? {
            secretKey: e.STRIPE_SECRET_KEY,
            publishableKey: e.STRIPE_PUBLISHABLE_KEY!,
            webhookSecret: e.STRIPE_WEBHOOK_SECRET!,
            apiUrl: e.STRIPE_API_URL,
          }
        : undefined,
      payssion: e.PAYSSION_API_KEY
        ? { apiKey: e.PAYSSION_API_KEY, secretKey: e.PAYSSION_SECRET_KEY!, apiUrl: e.PAYSSION_API_URL }
        : undefined,
      cardlink: e.CARDLINK_API_TOKEN
        ? { apiToken: e.CARDLINK_API_TOKEN, shopId: e.CARDLINK_SHOP_ID!, apiUrl: e.CARDLINK_API_URL }
        : undefined,
      postbackUrls: e.POSTBACK_URLS.split(/\s+/).filter(Boolean),
      moneyBackDays: e.MONEY_BACK_DAYS,
      renewalLeadDays: e.RENEWAL_LEAD_DAYS,
      renewalRetryDays: e.RENEWAL_RETRY_DAYS,
    },
    geoip: { mmdbFile: e.GEOIP_MMDB ? path.resolve(e.GEOIP_MMDB) : undefined, defaultCountry: e.DEFAULT_COUNTRY },
    jobs: e.JOBS,
    renewConcurrency: e.JOBS_RENEW_CONCURRENCY,
    apiDocs: e.API_DOCS ?? e.NODE_ENV !== 'production',
    perIpLimits: { login: e.LIMIT_LOGIN_PER_IP, register: e.LIMIT_REGISTER_PER_IP, reset: e.LIMIT_RESET_PER_IP },
    healthCacheMs: e.HEALTH_CACHE_MS,
    shutdown: {
      delayMs: e.SHUTDOWN_DELAY_MS ?? (e.NODE_ENV === 'production' ? 5000 : 0),
      graceMs: e.SHUTDOWN_GRACE_MS,
    },
    metrics:
      e.METRICS_PORT === undefined
        ? undefined
        : {
            host: e.METRICS_HOST,
            port: e.METRICS_PORT,
            token: e.METRICS_TOKEN_FILE
              ? fs.readFileSync(path.resolve(e.METRICS_TOKEN_FILE), 'utf8').trim()
              : undefined,
          },
    rewardDays: e.REWARD_DAYS,
    affiliateCommissionPercent: e.AFFILIATE_COMMISSION_PERCENT,
    vpn: vpnSettings(e),
  };
  return { ...config, ...overrides };
}

const list = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
function vpnSettings(e: Env): VpnConfig {
  const pools = parsePools(e.WG_IPV4_POOL, e.WG_IPV6_POOL); // validated above
  return {
    deviceLimit: { free: e.WG_DEVICE_LIMIT_FREE, paid: e.WG_DEVICE_LIMIT_PAID },
    pools,
    dns: e.WG_DNS ? list(e.WG_DNS) : [pools.v4.gateway, pools.v6.gateway],
    allowedIps: list(e.WG_ALLOWED_IPS),
    nodeOnlineSeconds: e.NODE_ONLINE_SECONDS,
    changePollMs: e.VPN_CHANGE_POLL_MS,
    highWaterPercent: e.VPN_NODE_HIGH_WATER_PERCENT,
    seed: e.VPN_SEED,
    demoNodes: e.NODE_ENV !== 'production',
    locationsFile: e.LOCATIONS_FILE ? path.resolve(e.LOCATIONS_FILE) : path.join(repoRoot, 'config/locations.json'),
    downloadsFile: e.DOWNLOADS_FILE ? path.resolve(e.DOWNLOADS_FILE) : path.join(repoRoot, 'config/downloads.json'),
  };
}
