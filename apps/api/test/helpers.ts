import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { buildApp, type AppDeps } from '../src/app.js';
import { type Config, loadConfig } from '../src/config.js';

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
  if (!pgUrl && !env.DATABASE_URL) config.database = { kind: 'pglite', dataDir: 'memory://', templateFile: process.env.WARREN_PGLITE_TEMPLATE };
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
        await client.end();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ClientOptions {
  host?: string;
}

/**
 * Talks to the app like the web app does: keeps the XSRF cookie and echoes it, keeps the
 * bearer token and follows its rotation.
 */
export class TestClient {
  token?: string;
  private xsrf?: string;
  constructor(
    private readonly app: FastifyInstance,
    private readonly opts: ClientOptions = {},
  ) {}

  async request(opts: InjectOptions & { auth?: boolean }): Promise<LightMyRequestResponse> {
    if (!this.xsrf) await this.primeXsrf();
    const headers: Record<string, string> = { host: this.opts.host ?? 'localhost', ...(opts.headers as Record<string, string>) };
    if (opts.auth !== false && this.token && !headers.authorization) headers.authorization = `Bearer ${this.token}`;
    if (opts.method && opts.method !== 'GET' && !('x-xsrf-token' in headers)) headers['x-xsrf-token'] = this.xsrf!;
    const res = await this.app.inject({ ...opts, headers, cookies: { 'XSRF-TOKEN': this.xsrf!, ...(opts.cookies ?? {}) } });
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
    const res = await this.app.inject({ method: 'GET', url: '/api/brand', headers: { host: this.opts.host ?? 'localhost' } });
    const cookie = res.cookies.find((c) => c.name === 'XSRF-TOKEN');
    if (!cookie) throw new Error('no XSRF cookie');
    this.xsrf = cookie.value;
  }
}

export const PASSWORD = 'correct horse battery';

let counter = 0;
export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}.${Date.now().toString(36)}.${counter++}@example.com`;
}

export async function registerUser(client: TestClient, email = uniqueEmail(), extra: Record<string, unknown> = {}) {
  const res = await client.post('/api/users/register', { name: 'Test User', email, password: PASSWORD, password_confirmation: PASSWORD, ...extra });
  if (res.statusCode !== 201) throw new Error(`register failed: ${res.statusCode} ${res.body}`);
  const body = res.json() as { data: { user: { id: number; email: string }; token: string } };
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

/** The account's plan as the web app reads it (info/get), with its status. */
export async function subscriptionOf(c: TestClient) {
  const me = (await c.get('/api/users/info/get')).json().data;
  return { ...(me.subscriptionData as { tariffKey: string; tariffName: string; expiresAt: string | null }), accountStatus: me.accountStatus as string };
}
