import path from 'node:path';
import { z } from 'zod';

/**
 * Every environment variable the API reads, validated once at start-up. Defaults give the
 * embedded, no-services setup (PGlite, outbox mail, captcha none, sandbox payments).
 */
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const schema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    DATA_DIR: z.string().min(1).default('./data'),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
      .optional(),
    DATABASE_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]*$/, 'must be a lower-case SQL identifier').optional(),
    PUBLIC_URL: z.url().optional(),
    APP_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    BRANDS_FILE: z.string().optional(),
    MAIL_URL: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional(),
    MAIL_FROM: z.string().default('Warren <no-reply@warren.localhost>'),
    MAIL_IGNORE_TLS: bool.default(false),
    CAPTCHA_PROVIDER: z.enum(['none', 'recaptcha', 'turnstile']).optional(),
    CAPTCHA_SECRET: z.string().optional(),
    CAPTCHA_SITE_KEY: z.string().optional(),
    CAPTCHA_VERIFY_URL: z.url().optional(),
    ALLOW_NO_CAPTCHA_IN_PRODUCTION: bool.default(false),
    REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// URL').optional(),
    TRUST_PROXY: bool.default(false),
    TOKEN_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
    TOKEN_ROTATE_AFTER_MINUTES: z.coerce.number().int().min(1).default(24 * 60),
    TOKEN_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
    BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(65_536),
    TEST_ACCOUNT_SUFFIXES: z.string().default('@test.warren.invalid'),
  })
  .superRefine((c, ctx) => {
    if (c.NODE_ENV === 'production') {
      if (!c.APP_SECRET) ctx.addIssue({ code: 'custom', path: ['APP_SECRET'], message: 'is required in production' });
      const provider = c.CAPTCHA_PROVIDER ?? 'none';
      if (provider === 'none' && !c.ALLOW_NO_CAPTCHA_IN_PRODUCTION)
        ctx.addIssue({
          code: 'custom',
          path: ['CAPTCHA_PROVIDER'],
          message: 'is none in production; set recaptcha or turnstile, or ALLOW_NO_CAPTCHA_IN_PRODUCTION=true to run without one',
        });
    }
    if (c.CAPTCHA_PROVIDER && c.CAPTCHA_PROVIDER !== 'none' && !c.CAPTCHA_SECRET)
      ctx.addIssue({ code: 'custom', path: ['CAPTCHA_SECRET'], message: `is required with CAPTCHA_PROVIDER=${c.CAPTCHA_PROVIDER}` });
  });

export type Env = z.infer<typeof schema>;

export interface Config {
  env: Env['NODE_ENV'];
  isProduction: boolean;
  host: string;
  port: number;
  dataDir: string;
  /** `memory://` keeps PGlite in memory (tests). */
  database: { kind: 'pglite'; dataDir: string } | { kind: 'postgres'; url: string; schema?: string };
  publicUrl?: string;
  appSecret: string;
  logLevel: Env['LOG_LEVEL'];
  brandsFile: string;
  mail: { url?: string; from: string; ignoreTls: boolean; outboxDir: string };
  captcha: { provider: 'none' | 'recaptcha' | 'turnstile'; secret?: string; siteKey?: string; verifyUrl: string };
  redisUrl?: string;
  trustProxy: boolean;
  tokens: { ttlMs: number; rotateAfterMs: number; graceMs: number };
  bodyLimit: number;
  testAccountSuffixes: string[];
  webDistDir: string;
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

const repoRoot = path.resolve(import.meta.dirname, '../../..');

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
    dataDir,
    database: e.DATABASE_URL
      ? { kind: 'postgres', url: e.DATABASE_URL, schema: e.DATABASE_SCHEMA }
      : { kind: 'pglite', dataDir: path.join(dataDir, 'pglite') },
    publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ''),
    // Outside production a fixed development secret keeps tokens valid across restarts; production requires APP_SECRET.
    appSecret: e.APP_SECRET ?? 'warren-development-secret-do-not-use-in-production',
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
    trustProxy: e.TRUST_PROXY,
    tokens: {
      ttlMs: e.TOKEN_TTL_DAYS * 86_400_000,
      rotateAfterMs: e.TOKEN_ROTATE_AFTER_MINUTES * 60_000,
      graceMs: e.TOKEN_GRACE_SECONDS * 1000,
    },
    bodyLimit: e.BODY_LIMIT_BYTES,
    testAccountSuffixes: e.TEST_ACCOUNT_SUFFIXES.split(',').map((s) => s.trim()).filter(Boolean),
    webDistDir: path.join(repoRoot, 'apps/web/dist'),
  };
  return { ...config, ...overrides };
}
