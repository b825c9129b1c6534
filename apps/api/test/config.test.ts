import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const serverEntry = path.join(repoRoot, 'apps/api/src/server.ts');

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

const PROD_SECRET = 'p'.repeat(40);

describe('loadConfig', () => {
  it('reads the VPN settings with the rest, once, and lists their problems with the others', () => {
    const c = loadConfig({ WG_DEVICE_LIMIT_PAID: '3', WG_DNS: '1.1.1.1, 9.9.9.9' });
    expect(c.vpn).toMatchObject({ deviceLimit: { free: 1, paid: 3 }, dns: ['1.1.1.1', '9.9.9.9'], seed: true });
    expect(c.vpn.locationsFile).toBe(path.join(repoRoot, 'config/locations.json'));
    expect(loadConfig({}).vpn.dns).toEqual(['10.64.0.1', 'fd77:6172:7265::1']);
    const problems = problemsOf({ WG_IPV4_POOL: '10.0.0.0/33', PORT: 'x' });
    expect(problems.some((p) => p.startsWith('WG_IPV4_POOL'))).toBe(true);
    expect(problems.some((p) => p.startsWith('PORT'))).toBe(true);
  });

  it('gives the embedded, no-services defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      env: 'development',
      isProduction: false,
      host: '127.0.0.1',
      port: 8080,
      logLevel: 'info',
      captcha: { provider: 'none', verifyUrl: '' },
      trustProxy: false,
      bodyLimit: 65_536,
      tokens: { ttlMs: 30 * 86_400_000, rotateAfterMs: 24 * 3_600_000, graceMs: 60_000 },
      testAccountSuffixes: ['@test.warren.invalid'],
    });
    expect(c.database).toEqual({ kind: 'pglite', dataDir: path.resolve('./data/pglite') });
    expect(c.mail).toMatchObject({ url: undefined, ignoreTls: false, outboxDir: path.resolve('./data/outbox') });
    expect(c.redisUrl).toBeUndefined();
    expect(c.appSecret.length).toBeGreaterThanOrEqual(32);
  });

  it('reads the real services and treats empty variables as unset', () => {
    const c = loadConfig({
      DATABASE_URL: 'postgresql://u:p@db:5432/warren',
      DATABASE_SCHEMA: 'tenant_1',
      REDIS_URL: 'rediss://cache:6380',
      MAIL_URL: 'smtps://mail:465',
      MAIL_IGNORE_TLS: 'yes',
      CAPTCHA_PROVIDER: 'turnstile',
      CAPTCHA_SECRET: 's',
      PORT: '0',
      PUBLIC_URL: 'https://app.example.com///',
      TEST_ACCOUNT_SUFFIXES: ' @a.test , ,@b.test ',
      LOG_LEVEL: '',
    });
    expect(c.database).toEqual({ kind: 'postgres', url: 'postgresql://u:p@db:5432/warren', schema: 'tenant_1' });
    expect(c.redisUrl).toBe('rediss://cache:6380');
    expect(c.mail.ignoreTls).toBe(true);
    expect(c.captcha).toMatchObject({
      provider: 'turnstile',
      verifyUrl: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
    });
    expect(c.port).toBe(0);
    expect(c.publicUrl).toBe('https://app.example.com');
    expect(c.testAccountSuffixes).toEqual(['@a.test', '@b.test']);
    expect(c.logLevel).toBe('info');
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '80.5'],
    ['DATABASE_URL', 'mysql://root@localhost/db'],
    ['DATABASE_SCHEMA', 'Robert"); drop table users;--'],
    ['LOG_LEVEL', 'loud'],
    ['NODE_ENV', 'staging'],
    ['REDIS_URL', 'http://cache:6379'],
    ['MAIL_URL', 'http://mail'],
    ['MAIL_IGNORE_TLS', 'maybe'],
    ['TRUST_PROXY', 'sure'],
    ['PUBLIC_URL', 'not a url'],
    ['APP_SECRET', 'too-short'],
    ['CAPTCHA_PROVIDER', 'hcaptcha'],
    ['CAPTCHA_VERIFY_URL', 'nope'],
    ['TOKEN_TTL_DAYS', '0'],
    ['BODY_LIMIT_BYTES', '10'],
  ])('names %s when it is %j', (name, value) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name}: .+`));
  });

  it('lists every bad variable at once in a readable message', () => {
    try {
      loadConfig({ PORT: 'abc', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud' });
      expect.unreachable();
    } catch (err) {
      const message = (err as Error).message;
      expect(message).toMatch(/^Invalid configuration:/);
      for (const name of ['PORT', 'DATABASE_URL', 'LOG_LEVEL']) expect(message).toContain(`  - ${name}: `);
      expect(message).toContain('must be a postgres:// URL');
    }
  });

  it('tries a refused renewal again only on days before the plan ends', () => {
    expect(loadConfig({}).billing.renewalRetryDays).toEqual([1, 2]);
    expect(loadConfig({ RENEWAL_LEAD_DAYS: '6', RENEWAL_RETRY_DAYS: '1,3,5' }).billing.renewalRetryDays).toEqual([
      1, 3, 5,
    ]);
    expect(problemsOf({ RENEWAL_RETRY_DAYS: '1,3' }).join('\n')).toMatch(
      /RENEWAL_RETRY_DAYS.*has 3, not before the plan ends/,
    );
    expect(problemsOf({ RENEWAL_RETRY_DAYS: '2,1' }).join('\n')).toMatch(/RENEWAL_RETRY_DAYS.*ascending/);
    expect(problemsOf({ RENEWAL_RETRY_DAYS: 'soon' }).join('\n')).toMatch(/RENEWAL_RETRY_DAYS/);
  });

  it('drains for 5 s on SIGTERM in production, not elsewhere, always within the grace', () => {
    expect(loadConfig({}).shutdown).toEqual({ delayMs: 0, graceMs: 25_000 });
    expect(
      loadConfig({ NODE_ENV: 'production', APP_SECRET: PROD_SECRET, ALLOW_NO_CAPTCHA_IN_PRODUCTION: 'true' }).shutdown,
    ).toEqual({ delayMs: 5000, graceMs: 25_000 });
    expect(loadConfig({ SHUTDOWN_DELAY_MS: '2000', SHUTDOWN_GRACE_MS: '10000' }).shutdown).toEqual({
      delayMs: 2000,
      graceMs: 10_000,
    });
    expect(problemsOf({ SHUTDOWN_DELAY_MS: '30000' }).join('\n')).toMatch(
      /SHUTDOWN_DELAY_MS.*shorter than SHUTDOWN_GRACE_MS/,
    );
    expect(problemsOf({ SHUTDOWN_GRACE_MS: 'soon' }).join('\n')).toMatch(/SHUTDOWN_GRACE_MS/);
  });

  it('refuses production without APP_SECRET', () => {
    const problems = problemsOf({ NODE_ENV: 'production', CAPTCHA_PROVIDER: 'recaptcha', CAPTCHA_SECRET: 's' });
    expect(problems).toEqual(['APP_SECRET: is required in production']);
  });

  it('refuses production without a captcha unless explicitly allowed', () => {
    const problems = problemsOf({ NODE_ENV: 'production', APP_SECRET: PROD_SECRET });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^CAPTCHA_PROVIDER: .*ALLOW_NO_CAPTCHA_IN_PRODUCTION=true/);
    expect(problemsOf({ NODE_ENV: 'production', APP_SECRET: PROD_SECRET, CAPTCHA_PROVIDER: 'none' })[0]).toMatch(
      /^CAPTCHA_PROVIDER:/,
    );
    expect(
      problemsOf({ NODE_ENV: 'production', APP_SECRET: PROD_SECRET, ALLOW_NO_CAPTCHA_IN_PRODUCTION: 'false' })[0],
    ).toMatch(/^CAPTCHA_PROVIDER:/);
    const allowed = loadConfig({
      NODE_ENV: 'production',
      APP_SECRET: PROD_SECRET,
      ALLOW_NO_CAPTCHA_IN_PRODUCTION: 'true',
    });
    expect(allowed).toMatchObject({ isProduction: true, appSecret: PROD_SECRET, captcha: { provider: 'none' } });
    const withCaptcha = loadConfig({
      NODE_ENV: 'production',
      APP_SECRET: PROD_SECRET,
      CAPTCHA_PROVIDER: 'recaptcha',
      CAPTCHA_SECRET: 's',
    });
    expect(withCaptcha.captcha).toMatchObject({
      provider: 'recaptcha',
      verifyUrl: 'https://www.google.com/recaptcha/api/siteverify',
    });
  });

  it('requires the captcha secret with a captcha provider', () => {
    expect(problemsOf({ CAPTCHA_PROVIDER: 'recaptcha' })).toEqual([
      'CAPTCHA_SECRET: is required with CAPTCHA_PROVIDER=recaptcha',
    ]);
  });

  it('makes the server exit with EX_CONFIG and the message, before touching anything', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-cfg-'));
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', serverEntry], {
        cwd: repoRoot,
        env: { PATH: process.env.PATH, PORT: 'abc', LOG_LEVEL: 'loud', DATA_DIR: dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(78);
      expect(stderr).toContain('Invalid configuration');
      expect(stderr).toMatch(/PORT: /);
      expect(stderr).toMatch(/LOG_LEVEL: /);
      expect(stderr).not.toMatch(/\n\s+at /);
      expect(fs.readdirSync(dataDir)).toEqual([]);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});

// --- logs of the real server ----------------------------------------------------------------

describe('server logs', () => {
  const pgUrl = process.env.TEST_DATABASE_URL;
  const schema = `logs_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  let child: ChildProcess | undefined;
  let dataDir: string | undefined;

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL');
      await new Promise((resolve) => child!.once('exit', resolve));
    }
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    if (pgUrl) {
      const client = new pg.Client({ connectionString: pgUrl });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    }
  });

  it('never log the bearer token, the password, the email token or the XSRF token, and every request line has reqId', async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-logs-'));
    child = spawn(process.execPath, ['--import', 'tsx', serverEntry], {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'development',
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
        DATA_DIR: dataDir,
        ...(pgUrl ? { DATABASE_URL: pgUrl, DATABASE_SCHEMA: schema } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const origin = await new Promise<string>((resolve, reject) => {
      child!.stdout!.on('data', (c: Buffer) => {
        stdout += c.toString();
        const m = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(stdout);
        if (m) resolve(m[1]!);
      });
      child!.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}${stdout}`)));
    });

    // A browser-like client: XSRF cookie + header, bearer token.
    const health = await fetch(`${origin}/api/brand`);
    const cookie = health.headers
      .getSetCookie()
      .map((c) => c.split(';')[0]!)
      .join('; ');
    const xsrf = /XSRF-TOKEN=([^;]+)/.exec(cookie)![1]!;
    const call = async (method: string, url: string, body?: unknown, bearer?: string) => {
      const res = await fetch(`${origin}${url}`, {
        method,
        headers: {
          cookie,
          'x-xsrf-token': decodeURIComponent(xsrf),
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      });
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of several shapes, read field by field
      return { status: res.status, json: (await res.json()) as any, headers: res.headers };
    };

    const email = `logs.${Date.now()}@example.com`;
    const password = 'a very secret password 7';
    const reg = await call('POST', '/api/users/register', { email, password, password_confirmation: password });
    expect(reg.status).toBe(201);
    const registerToken = reg.json.data.token as string;
    // The verification mail lands in the development outbox once written.
    let mails: { text: string }[] = [];
    for (let i = 0; i < 50 && !mails.length; i++)
      mails = (await call('GET', `/api/dev/mail?to=${encodeURIComponent(email)}`)).json.data;
    const link = /userId=(\d+)&token=([^\s&]+)/.exec(mails[0]!.text)!;
    const emailToken = decodeURIComponent(link[2]!);
    expect((await call('POST', '/api/users/verifyUser', { userId: Number(link[1]), token: emailToken })).status).toBe(
      200,
    );
    // The token also passes through a URL the way the web app's link does: the log must redact it.
    expect(
      (await call('GET', `/api/users/info/get?token=${encodeURIComponent(emailToken)}`, undefined, registerToken))
        .status,
    ).toBe(200);
    expect((await call('POST', '/api/users/login', { email, password: `${password}-wrong` })).status).toBe(422);
    const login = await call('POST', '/api/users/login', { email, password });
    expect(login.status).toBe(200);
    const loginToken = login.json.data.token as string;
    expect((await call('GET', '/api/users/info/get', undefined, loginToken)).status).toBe(200);
    expect((await call('POST', '/api/users/logout', undefined, loginToken)).status).toBe(200);

    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) =>
      child!.exitCode !== null ? resolve(child!.exitCode) : child!.once('exit', resolve),
    );
    expect(code).toBe(0);

    const lines = stdout.split('\n').filter(Boolean);
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const requestLines = entries.filter((e) => e.req || e.res || /request/.test(String(e.msg)));
    // register, mail polling, verify, info, login x2, info, logout: each logs at least an incoming and a completed line
    expect(requestLines.length).toBeGreaterThanOrEqual(16);
    for (const e of requestLines) expect(e.reqId, JSON.stringify(e)).toEqual(expect.any(String));
    const all = stdout + stderr;
    for (const [what, secret] of [
      ['register token', registerToken],
      ['login token', loginToken],
      ['password', password],
      ['email token', emailToken],
      ['email token (URL-encoded)', encodeURIComponent(emailToken)],
      // date-salt-HMAC: the HMAC part, and the httpOnly key the token is bound to.
      ['XSRF token', decodeURIComponent(xsrf).split('-').pop()!],
      ['XSRF key', /warren-xsrf-key=([^;]+)/.exec(cookie)![1]!],
    ] as const) {
      expect(all.includes(secret), `${what} appears in the logs`).toBe(false);
    }
    expect(all).toContain('[redacted]');
  }, 90_000);
});
