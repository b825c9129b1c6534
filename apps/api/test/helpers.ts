import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { buildApp, type AppDeps } from '../src/app.js';
import { type Config, loadConfig } from '../src/config.js';
import { decryptText, encryptText } from '../src/lib/secrets.js';

/**
 * A fresh application per test file: PGlite in memory by default, or a fresh schema on the
 * PostgreSQL server when TEST_DATABASE_URL is set (CI runs the suite both ways).
 */
export interface TestApp {
  app: FastifyInstance;
  config: Config;
  dataDir: string;
  close(): Promise<void>;
}

export async function createTestApp(
  env: Record<string, string> = {},
  overrides: Partial<AppDeps> = {},
  /** Last changes to the validated config (paths the environment does not set, e.g. the web build). */
  adjust?: (config: Config) => void,
): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-test-'));
  const pgUrl = process.env.TEST_DATABASE_URL;
  const schema = pgUrl ? `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}` : undefined;
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    ...(pgUrl ? { DATABASE_URL: pgUrl, DATABASE_SCHEMA: schema } : {}),
    ...env,
  });
  if (!pgUrl && !env.DATABASE_URL)
    config.database = { kind: 'pglite', dataDir: 'memory://', templateFile: process.env.WARREN_PGLITE_TEMPLATE };
  adjust?.(config);
  const app = await buildApp(config, overrides);
  return {
    app,
    config,
    dataDir,
    async close() {
      await app.close();
      if (pgUrl && schema) {
        const client = new pg.Client({ connectionString: pgUrl });
        await client.connect();
        await client.query(`drop schema if exists ${schema} cascade`);
        // The job engine's tables (pg-boss, modules/billing/jobs.ts) live beside it when JOBS was on.
        await client.query(`drop schema if exists ${schema}_jobs cascade`);
        await client.end();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The Redis the scale-out tests share (CI sets REDIS_TEST_URL). */
export const REDIS_TEST_URL = process.env.REDIS_TEST_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * One of several API instances on ONE PostgreSQL schema (TEST_DATABASE_URL) and ONE Redis, as
 * behind a load balancer; built purely from configuration. Its data dir goes into `dataDirs`
 * for the caller to remove.
 */
export async function sharedInstance(opts: {
  schema: string;
  dataDirs: string[];
  env?: Record<string, string>;
  overrides?: Partial<AppDeps>;
}): Promise<FastifyInstance> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-shared-'));
  opts.dataDirs.push(dataDir);
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    DATABASE_URL: process.env.TEST_DATABASE_URL!,
    DATABASE_SCHEMA: opts.schema,
    REDIS_URL: REDIS_TEST_URL,
    ...opts.env,
  });
  return buildApp(config, opts.overrides);
}

export interface ClientOptions {
  host?: string;
  /** The User-Agent header every request of this client sends. */
  userAgent?: string;
}

/**
 * Talks to the app like the web app does: keeps the cookies the server sets (the readable
 * XSRF-TOKEN and the httpOnly key it is bound to) and sends them back, echoes the XSRF token,
 * keeps the bearer token and follows its rotation.
 */
export class TestClient {
  token?: string;
  /** The cookie jar: what the server set, sent back on every request like a browser does. */
  readonly cookies: Record<string, string> = {};
  constructor(
    private readonly app: FastifyInstance,
    private readonly opts: ClientOptions = {},
  ) {}

  /** The Host header this client sends. */
  get host(): string {
    return this.opts.host ?? 'localhost';
  }

  get xsrf(): string | undefined {
    return this.cookies['XSRF-TOKEN'];
  }

  async request(opts: InjectOptions & { auth?: boolean }): Promise<LightMyRequestResponse> {
    if (!this.xsrf) await this.primeXsrf();
    const headers: Record<string, string> = {
      host: this.opts.host ?? 'localhost',
      ...(this.opts.userAgent ? { 'user-agent': this.opts.userAgent } : {}),
      ...(opts.headers as Record<string, string>),
    };
    if (opts.auth !== false && this.token && !headers.authorization) headers.authorization = `Bearer ${this.token}`;
    if (opts.method && opts.method !== 'GET' && !('x-xsrf-token' in headers)) headers['x-xsrf-token'] = this.xsrf!;
    const res = await this.app.inject({ ...opts, headers, cookies: { ...this.cookies, ...(opts.cookies ?? {}) } });
    this.keepCookies(res);
    const rotated = res.headers.authorization;
    if (typeof rotated === 'string' && rotated.startsWith('Bearer ')) this.token = rotated.slice(7);
    return res;
  }

  get(url: string, extra: Partial<InjectOptions> & { auth?: boolean } = {}) {
    return this.request({ method: 'GET', url, ...extra });
  }

  post(url: string, payload?: unknown, extra: Partial<InjectOptions> & { auth?: boolean } = {}) {
    return this.request({ method: 'POST', url, payload: payload as InjectOptions['payload'], ...extra });
  }

  async primeXsrf(): Promise<void> {
    const res = await this.app.inject({
      method: 'GET',
      url: '/api/brand',
      headers: { host: this.opts.host ?? 'localhost' },
      cookies: this.cookies,
    });
    this.keepCookies(res);
    if (!this.xsrf) throw new Error('no XSRF cookie');
  }

  private keepCookies(res: LightMyRequestResponse): void {
    for (const c of res.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
      const gone = c.maxAge === 0 || (c.expires !== undefined && c.expires.getTime() <= Date.now()) || c.value === '';
      if (gone) delete this.cookies[c.name];
      else this.cookies[c.name] = c.value;
    }
  }
}

export const PASSWORD = 'correct horse battery';

let counter = 0;
export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}.${Date.now().toString(36)}.${counter++}@example.com`;
}

/** Restricted brands' keys by host (config/brands.json): their hosts take only the encrypted sign-up (spec section 6). */
const restrictedKeyByHost = new Map<string, string>(
  (
    JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../config/brands.json'), 'utf8')) as {
      brands: { hosts: string[]; restrictedKey: string | null }[];
    }
  ).brands.flatMap((b) => (b.restrictedKey ? b.hosts.map((h) => [h, b.restrictedKey!] as [string, string]) : [])),
);

export async function registerUser(client: TestClient, email = uniqueEmail(), extra: Record<string, unknown> = {}) {
  const payload = { name: 'Test User', email, password: PASSWORD, password_confirmation: PASSWORD, ...extra };
  const key = restrictedKeyByHost.get(client.host.replace(/:\d+$/, ''));
  const res = key
    ? await client.post('/api/users/restrictedRegister', encryptText(key, JSON.stringify(payload)), {
        headers: { 'content-type': 'text/plain' },
      })
    : await client.post('/api/users/register', payload);
  if (res.statusCode !== 201) throw new Error(`register failed: ${res.statusCode} ${res.body}`);
  const body = (key ? JSON.parse(decryptText(key, res.body)!) : res.json()) as {
    data: { user: { id: number; email: string }; token: string };
  };
  client.token = body.data.token;
  return body.data;
}

export async function mailTo(client: TestClient, app: FastifyInstance, email: string) {
  await app.settle(); // mail goes out in the background
  const res = await client.get(`/api/dev/mail?to=${encodeURIComponent(email)}`, { auth: false });
  return (res.json() as { data: { subject: string; text: string; html: string }[] }).data;
}

export function linkParams(text: string, pathName: string): { userId: number; token: string } {
  const match = new RegExp(`${pathName}\\?userId=(\\d+)&token=([^\\s&]+)`).exec(text);
  if (!match) throw new Error(`no ${pathName} link in: ${text}`);
  return { userId: Number(match[1]), token: decodeURIComponent(match[2]!) };
}

/** The signed-in user as the web app reads it: info/get, or restrictedUserCheck on a restricted host (which refuses the plain call). */
export async function userInfo(c: TestClient): Promise<Record<string, unknown>> {
  const key = restrictedKeyByHost.get(c.host.replace(/:\d+$/, ''));
  if (!key) return (await c.get('/api/users/info/get')).json().data;
  const res = await c.post('/api/users/restrictedUserCheck', encryptText(key, JSON.stringify({ token: c.token })), {
    headers: { 'content-type': 'text/plain' },
    auth: false,
  });
  if (res.statusCode !== 200) throw new Error(`restrictedUserCheck failed: ${res.statusCode} ${res.body}`);
  return JSON.parse(decryptText(key, res.body)!).data.user;
}

/** createPayment as the web app sends it: plain JSON, or restrictedCreatePayment (encrypted, the token inside) on a restricted host. */
export async function createPaymentAs(
  c: TestClient,
  body: Record<string, unknown>,
): Promise<{ statusCode: number; body: string; data: Record<string, unknown> }> {
  const key = restrictedKeyByHost.get(c.host.replace(/:\d+$/, ''));
  if (!key) {
    const res = await c.post('/api/billing/createPayment', body);
    return { statusCode: res.statusCode, body: res.body, data: res.statusCode === 200 ? res.json().data : {} };
  }
  const res = await c.post(
    '/api/billing/restrictedCreatePayment',
    encryptText(key, JSON.stringify({ ...body, token: c.token })),
    { headers: { 'content-type': 'text/plain' }, auth: false },
  );
  return {
    statusCode: res.statusCode,
    body: res.body,
    data: res.statusCode === 200 ? JSON.parse(decryptText(key, res.body)!).data : {},
  };
}

export interface CallAnswer {
  statusCode: number;
  headers: Record<string, string | undefined>;
  body: string;
  rawPayload: Buffer;
  json(): any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * A signed-in call as the web app makes it: directly with the bearer header, or on a restricted
 * host through the envelope (POST /api/restrictedCall, README: Restricted hosts), whose sealed
 * answer is opened here into the call's own status, headers and body.
 */
export async function signedInCall(
  c: TestClient,
  method: 'GET' | 'POST',
  url: string,
  payload?: unknown,
  headers: Record<string, string> = {},
): Promise<CallAnswer> {
  const key = restrictedKeyByHost.get(c.host.replace(/:\d+$/, ''));
  if (!key) {
    const res = await c.request({
      method,
      url,
      headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return {
      statusCode: res.statusCode,
      headers: res.headers as CallAnswer['headers'],
      body: res.body,
      rawPayload: res.rawPayload,
      json: () => res.json(),
    };
  }
  const [path, query] = url.split('?') as [string, string | undefined];
  const call = {
    token: c.token,
    method,
    path,
    ...(query ? { query } : {}),
    ...(payload === undefined ? {} : { body: payload }),
    ...(Object.keys(headers).length ? { headers } : {}),
  };
  const res = await c.post('/api/restrictedCall', encryptText(key, JSON.stringify(call)), {
    headers: { 'content-type': 'text/plain' },
    auth: false,
  });
  if (res.statusCode !== 200)
    return {
      statusCode: res.statusCode,
      headers: res.headers as CallAnswer['headers'],
      body: res.body,
      rawPayload: res.rawPayload,
      json: () => res.json(),
    };
  const answer = JSON.parse(decryptText(key, res.body)!) as {
    status: number;
    headers: Record<string, string>;
    body?: string;
    bodyBase64?: string;
    rotatedToken?: string;
  };
  if (answer.rotatedToken) c.token = answer.rotatedToken;
  const raw =
    answer.bodyBase64 !== undefined ? Buffer.from(answer.bodyBase64, 'base64') : Buffer.from(answer.body ?? '');
  return {
    statusCode: answer.status,
    headers: answer.headers,
    body: raw.toString('utf8'),
    rawPayload: raw,
    json: () => JSON.parse(raw.toString('utf8')),
  };
}

/** The account's plan as the web app reads it (info/get), with its status. */
export async function subscriptionOf(c: TestClient) {
  const me = await userInfo(c);
  return {
    ...(me.subscriptionData as { tariffKey: string; tariffName: string; expiresAt: string | null }),
    accountStatus: me.accountStatus as string,
  };
}

/** A freshly signed-up member and the client signed in as them. */
export async function signedUpClient(app: FastifyInstance, extra: Record<string, unknown> = {}) {
  const c = new TestClient(app);
  const { user } = await registerUser(c, uniqueEmail(), extra);
  return { c, user };
}

/** Buys a plan with the sandbox provider and presses Pay on its hosted page; returns that page's answer. */
export async function payWithSandbox(app: FastifyInstance, c: TestClient, tariffId = 2) {
  const res = await c.post('/api/billing/createPayment', { tariffId, currency: 'USD', provider: 'sandbox' });
  if (res.statusCode !== 200) throw new Error(`createPayment failed: ${res.statusCode} ${res.body}`);
  const id = new URL(res.json().data.redirectUrl).pathname.split('/').pop();
  return app.inject({
    method: 'POST',
    url: `/sandbox/checkout/${id}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'outcome=pay',
  });
}

export type CustomerPlan = 'free' | 'paid' | 'lapsed' | 'lifetime' | 'inactive';

let signUpAddress = 0;

/**
 * A customer whose plan is set in the database, for the tests that are not about paying: verified
 * and active on 'free', 'paid' (1 Year, a year left), 'lapsed' (1 Year, ended yesterday) or
 * 'lifetime'; 'inactive' is the sign-up as it is (unverified). Each signs up from an address of
 * its own: the per-IP sign-up limit is not what these tests are about.
 */
export async function customerOnPlan(
  app: FastifyInstance,
  plan: CustomerPlan = 'free',
  { tag = 'user', name = 'Test User', language }: { tag?: string; name?: string; language?: string } = {},
): Promise<{ c: TestClient; id: number; email: string }> {
  const c = new TestClient(app);
  const email = uniqueEmail(tag);
  const n = ++signUpAddress;
  const res = await c.post(
    '/api/users/register',
    { name, email, password: PASSWORD, password_confirmation: PASSWORD },
    { remoteAddress: `10.9.${n >> 8}.${n & 255}` },
  );
  if (res.statusCode !== 201) throw new Error(`register failed: ${res.statusCode} ${res.body}`);
  const id = res.json().data.user.id as number;
  c.token = res.json().data.token;
  if (plan !== 'inactive')
    await app.db.query(`update users set verified = true, account_status = 'Active' where id = $1`, [id]);
  if (language) await app.db.query(`update users set language = $2 where id = $1`, [id, language]);
  if (plan === 'lifetime')
    await app.db.query(
      `update users set tariff_key = 'lifetime', tariff_name = 'Lifetime', subscription_expires_at = null where id = $1`,
      [id],
    );
  else if (plan === 'paid' || plan === 'lapsed')
    await app.db.query(
      `update users set tariff_key = '1-year', tariff_name = '1 Year', subscription_expires_at = now() + ($2::text)::interval where id = $1`,
      [id, plan === 'paid' ? '1 year' : '-1 day'],
    );
  return { c, id, email };
}
