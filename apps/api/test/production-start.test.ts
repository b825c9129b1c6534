import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBrandRegistry } from '../src/brands/registry.js';
import { loadConfig } from '../src/config.js';
import { buildInfo } from '../src/lib/build-info.js';
import { isPlaceholderHost, startupReport } from '../src/lib/startup-report.js';
import { repoRoot, serverEntry, startServer } from './server-process.js';

// The start-up line and the production refusals (README: Running in production). The report is a
// pure function of the configuration and the brand file; the last tests run the real server.

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-prodstart-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const SECRETS = {
  APP_SECRET: 'app-secret-that-must-never-be-logged-000',
  DB_PASSWORD: 'db-pa55word-never-logged',
  MAIL_PASSWORD: 'mail-pa55word-never-logged',
  REDIS_PASSWORD: 'redis-pa55word-never-logged',
  STRIPE_SECRET_KEY: 'sk_live_never_logged_51Habc',
  STRIPE_WEBHOOK_SECRET: 'whsec_never_logged_abc',
  CAPTCHA_SECRET: 'captcha-secret-never-logged',
  PAYSSION_SECRET_KEY: 'payssion-secret-never-logged',
  CARDLINK_API_TOKEN: 'cardlink-token-never-logged',
};

/** A brand file for a real deployment: its own host and https origin. */
function brandsFile(name: string, brand: Record<string, unknown> = {}): string {
  const file = path.join(tmp, `${name}.json`);
  const entry = {
    id: 'acme-vpn',
    hosts: ['vpn.acme-privacy.com'],
    origin: 'https://vpn.acme-privacy.com',
    productName: 'Acme VPN',
    kind: 'vpn',
    logo: '/brand/warren-vpn.svg',
    mainProduct: true,
    helpCenterUrl: 'https://help.acme-privacy.com/',
    ...brand,
  };
  fs.writeFileSync(file, JSON.stringify({ brands: [entry] }));
  return file;
}

const goodBrands = () => brandsFile('good');

/** A production configuration with every part real (nothing here is reached: the report reads settings only). */
const production = (): Record<string, string> => ({
  NODE_ENV: 'production',
  APP_SECRET: SECRETS.APP_SECRET,
  CAPTCHA_PROVIDER: 'turnstile',
  CAPTCHA_SECRET: SECRETS.CAPTCHA_SECRET,
  DATABASE_URL: `postgres://warren:${SECRETS.DB_PASSWORD}@db.internal:5433/warren?sslmode=require`,
  DATABASE_SCHEMA: 'shop',
  MAIL_URL: `smtps://mailer:${SECRETS.MAIL_PASSWORD}@smtp.acme-privacy.com:465`,
  MAIL_FROM: 'Acme VPN <no-reply@acme-privacy.com>',
  REDIS_URL: `redis://:${SECRETS.REDIS_PASSWORD}@cache.internal:6380/2`,
  STRIPE_SECRET_KEY: SECRETS.STRIPE_SECRET_KEY,
  STRIPE_PUBLISHABLE_KEY: 'pk_live_visible_abc',
  STRIPE_WEBHOOK_SECRET: SECRETS.STRIPE_WEBHOOK_SECRET,
  PAYSSION_API_KEY: 'payssion-key',
  PAYSSION_SECRET_KEY: SECRETS.PAYSSION_SECRET_KEY,
  CARDLINK_API_TOKEN: SECRETS.CARDLINK_API_TOKEN,
  CARDLINK_SHOP_ID: 'shop-1',
  TRUST_PROXY: 'true',
  BRANDS_FILE: goodBrands(),
  DATA_DIR: path.join(tmp, 'data'),
});

const reportOf = (env: Record<string, string | undefined>) => {
  const clean = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as Record<string, string>;
  const config = loadConfig(clean);
  return startupReport(config, loadBrandRegistry(config.brandsFile), { version: '9.9.9', commit: 'abc123def456' });
};

describe('the start-up line', () => {
  it('names the build, database, mail transport, payment providers and brands, and holds no secret', () => {
    const report = reportOf(production());
    expect(report.refusals).toEqual([]);
    expect(report.warnings).toEqual([]);
    expect(report.summary).toMatchObject({
      version: '9.9.9',
      commit: 'abc123def456',
      env: 'production',
      database: 'PostgreSQL db.internal:5433/warren schema shop sslmode=require',
      mail: 'smtps://smtp.acme-privacy.com:465 from Acme VPN <no-reply@acme-privacy.com>',
      payments: ['stripe (live)', 'payssion', 'cardlink'],
      brands: ['acme-vpn https://vpn.acme-privacy.com'],
      redis: 'redis://cache.internal:6380',
      trustProxy: true,
    });
    const line = JSON.stringify(report);
    for (const [name, secret] of Object.entries(SECRETS)) expect(line, name).not.toContain(secret);
    expect(line).not.toMatch(/warren:|mailer:/); // no user names of URLs either
  });

  it('says where the embedded database and the outbox are outside production, with nothing to refuse', () => {
    const report = reportOf({ DATA_DIR: path.join(tmp, 'dev') });
    expect(report.summary.database).toBe(`embedded PGlite in ${path.join(tmp, 'dev', 'pglite')}`);
    expect(report.summary.mail).toBe(`outbox in ${path.join(tmp, 'dev', 'outbox')} (not sent)`);
    expect(report.summary.payments).toEqual(['sandbox']);
    expect(report.summary.brands).toEqual([
      'warren-vpn http://localhost:8080',
      'warren-proxy http://proxy.localhost:8080',
    ]);
    expect(report).toMatchObject({ refusals: [], warnings: [] });
  });

  it('carries the version of apps/api/package.json', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'apps/api/package.json'), 'utf8')) as {
      version: string;
    };
    expect(buildInfo().version).toBe(pkg.version);
  });
});

describe('production refuses what would harm customers silently', () => {
  it.each<[string, Record<string, string | undefined>, RegExp]>([
    ['mail kept in the local outbox', { MAIL_URL: undefined }, /^MAIL_URL is unset: mail would go to the local outbox/],
    [
      'the stock sender on warren.localhost',
      { MAIL_FROM: undefined },
      /^MAIL_FROM \(Warren <no-reply@warren\.localhost>\) is not an address on a real domain/,
    ],
    [
      'a brand origin on a reserved name',
      { BRANDS_FILE: 'example' },
      /^brand acme-vpn: its links .* would point at https:\/\/vpn\.example\.com/,
    ],
    [
      'a brand origin on a loopback address',
      { BRANDS_FILE: 'loopback' },
      /^brand acme-vpn: .* https:\/\/127\.0\.0\.1:8443/,
    ],
    [
      'Stripe test-mode keys',
      { STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_PUBLISHABLE_KEY: 'pk_test_abc' },
      /^Stripe has test-mode keys/,
    ],
    [
      "Payssion's sandbox",
      { PAYSSION_API_URL: 'https://sandbox.payssion.com' },
      /^PAYSSION_API_URL is Payssion's sandbox/,
    ],
  ])('%s', (_name, change, expected) => {
    const env: Record<string, string | undefined> = { ...production(), ...change };
    if (change.BRANDS_FILE === 'example')
      env.BRANDS_FILE = brandsFile('example', { hosts: ['vpn.example.com'], origin: undefined });
    if (change.BRANDS_FILE === 'loopback')
      env.BRANDS_FILE = brandsFile('loopback', { origin: 'https://127.0.0.1:8443' });
    const report = reportOf(env);
    expect(report.refusals).toEqual([expect.stringMatching(expected)]);
  });

  it('the stock brand file: links to https://localhost and https://proxy.localhost', () => {
    expect(reportOf({ ...production(), BRANDS_FILE: undefined }).refusals).toEqual([
      expect.stringMatching(
        /^brand warren-vpn: its links \(mails, receipts, payment return URLs\) would point at https:\/\/localhost, which no customer can reach/,
      ),
      expect.stringMatching(/^brand warren-proxy: .* https:\/\/proxy\.localhost, /),
    ]);
  });

  it('PUBLIC_URL gives the stock brand a real origin (and the proxy brand still points at proxy.localhost)', () => {
    const report = reportOf({ ...production(), BRANDS_FILE: undefined, PUBLIC_URL: 'https://vpn.acme-privacy.com' });
    expect(report.summary.brands).toEqual([
      'warren-vpn https://vpn.acme-privacy.com',
      'warren-proxy https://proxy.localhost',
    ]);
    expect(report.refusals).toEqual([expect.stringMatching(/^brand warren-proxy: .* https:\/\/proxy\.localhost/)]);
    // The stock help-centre link is a placeholder: warned, not refused.
    expect(report.warnings).toEqual([
      expect.stringMatching(/^brand warren-vpn: helpCenterUrl https:\/\/help\.warren\.example\/ is a placeholder/),
      expect.stringMatching(/^brand warren-proxy: helpCenterUrl/),
    ]);
  });
});

describe('production warns about what is visible or may be meant', () => {
  it.each<[string, Record<string, string | undefined>, RegExp]>([
    [
      'no payment provider',
      {
        STRIPE_SECRET_KEY: undefined,
        STRIPE_PUBLISHABLE_KEY: undefined,
        STRIPE_WEBHOOK_SECRET: undefined,
        PAYSSION_API_KEY: undefined,
        PAYSSION_SECRET_KEY: undefined,
        CARDLINK_API_TOKEN: undefined,
        CARDLINK_SHOP_ID: undefined,
      },
      /^no payment provider is configured/,
    ],
    ['no trusted proxy', { TRUST_PROXY: undefined }, /^TRUST_PROXY is off/],
    [
      'links over plain http',
      { BRANDS_FILE: 'http' },
      /^brand acme-vpn: links point at http:\/\/vpn\.acme-privacy\.com over plain http/,
    ],
  ])('%s', (_name, change, expected) => {
    const env: Record<string, string | undefined> = { ...production(), ...change };
    if (change.BRANDS_FILE === 'http') env.BRANDS_FILE = brandsFile('http', { origin: 'http://vpn.acme-privacy.com' });
    const report = reportOf(env);
    expect(report.refusals).toEqual([]);
    expect(report.warnings).toEqual([expect.stringMatching(expected)]);
    if (change.STRIPE_SECRET_KEY === undefined && 'STRIPE_SECRET_KEY' in change)
      expect(report.summary.payments).toEqual([]);
  });

  it('knows a placeholder host from a real one', () => {
    for (const h of [
      'localhost',
      'proxy.localhost',
      '127.0.0.1',
      '[::1]',
      'vpn.example',
      'example.com',
      'shop.example.org',
      'a.test',
      'x.invalid',
      'box.local',
      '0.0.0.0',
    ])
      expect(isPlaceholderHost(h), h).toBe(true);
    for (const h of ['vpn.acme-privacy.com', 'examples.com', 'testing.io', '203.0.113.7', 'localhost.acme.com'])
      expect(isPlaceholderHost(h), h).toBe(false);
  });
});

// --- the real server --------------------------------------------------------------------------

describe('the server in production', () => {
  const pgUrl = process.env.TEST_DATABASE_URL;
  const schema = `prodstart_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const env = (dataDir: string, change: Record<string, string | undefined> = {}) =>
    Object.fromEntries(
      Object.entries({
        PATH: process.env.PATH,
        ...production(),
        HOST: '127.0.0.1',
        PORT: '0',
        JOBS: 'false',
        REDIS_URL: undefined,
        DATABASE_URL: pgUrl,
        DATABASE_SCHEMA: pgUrl ? schema : undefined,
        // Reached only when a mail is sent: none is, here.
        MAIL_URL: `smtps://mailer:${SECRETS.MAIL_PASSWORD}@127.0.0.1:9/`,
        DATA_DIR: dataDir,
        ...change,
      }).filter((e): e is [string, string] => e[1] !== undefined),
    );

  beforeAll(() => fs.mkdirSync(path.join(tmp, 'servers'), { recursive: true }));
  afterAll(async () => {
    if (!pgUrl) return;
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  });

  it('logs one start-up line before it listens, without secrets', async () => {
    const dataDir = fs.mkdtempSync(path.join(tmp, 'servers', 'ok-'));
    const server = await startServer(env(dataDir, { TRUST_PROXY: undefined }));
    try {
      const lines = server
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const starting = lines.filter((l) => l.msg === 'warren starting');
      expect(starting).toHaveLength(1);
      expect(starting[0]).toMatchObject({
        level: 30,
        version: buildInfo().version,
        env: 'production',
        database: pgUrl
          ? expect.stringMatching(new RegExp(`^PostgreSQL .* schema ${schema}$`))
          : `embedded PGlite in ${path.join(dataDir, 'pglite')}`,
        mail: 'smtps://127.0.0.1:9 from Acme VPN <no-reply@acme-privacy.com>',
        payments: ['stripe (live)', 'payssion', 'cardlink'],
        brands: ['acme-vpn https://vpn.acme-privacy.com'],
      });
      expect(lines.findIndex((l) => l.msg === 'warren starting')).toBeLessThan(
        lines.findIndex((l) => String(l.msg).startsWith('Server listening')),
      );
      // The one thing wrong here is said loudly, once.
      expect(lines.filter((l) => String(l.msg).startsWith('PRODUCTION WARNING: TRUST_PROXY is off'))).toEqual([
        expect.objectContaining({ level: 40 }),
      ]);
      for (const [name, secret] of Object.entries(SECRETS)) expect(server.output(), name).not.toContain(secret);
    } finally {
      server.proc.kill('SIGTERM');
      await server.exited;
    }
  }, 240_000);

  // One process for every refusal (a start under tsx takes seconds on a loaded machine): each is listed.
  it('refuses to start with mail to the outbox and the stock brand file: exit 78, every reason, nothing written', async () => {
    const dataDir = fs.mkdtempSync(path.join(tmp, 'servers', 'refused-'));
    const child = spawn(process.execPath, ['--import', 'tsx', serverEntry], {
      cwd: repoRoot,
      env: env(dataDir, { MAIL_URL: undefined, BRANDS_FILE: undefined }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(78);
    expect(out).toMatch(/^Refusing to start in production:\n {2}- /);
    expect(out).toMatch(/- MAIL_URL is unset/);
    expect(out).toMatch(/- brand warren-vpn: its links .* https:\/\/localhost[^/]/);
    expect(out).not.toContain(SECRETS.APP_SECRET);
    expect(out).not.toContain(SECRETS.STRIPE_SECRET_KEY);
    expect(fs.readdirSync(dataDir)).toEqual([]);
  }, 240_000);
});
