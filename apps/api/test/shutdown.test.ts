import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { addLocation, addNode } from '../src/modules/nodes/admin.js';
import { type FakeServer, startFake } from './fakes/http.js';
import { type RunningServer, freePort, httpClient, startServer } from './server-process.js';

/**
 * Issue 22, SIGTERM: the real server process, with the job engine on. At SIGTERM a checkout is in
 * flight (the payment provider, a local fake, holds its answer) and an agent's long poll is parked.
 * /api/health must answer 503 at once while the instance still serves (the balancer's cue), a second
 * SIGTERM changes nothing, then the instance stops accepting, answers the long poll, lets the checkout
 * finish with 200, and exits 0 with no job left active. Before: the health check stayed 200 until
 * the port closed, and requests on kept-alive connections were reset or answered 503.
 */
const pgUrl = process.env.TEST_DATABASE_URL;
const schema = `shut_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-shut-'));
const TOKEN = 'cl-shutdown-token';
const SHOP = 'shop-shutdown';
let server: RunningServer | undefined;
let provider: FakeServer;
let nodeToken: string;

/** The provider's bill creation waits for the test: the checkout stays in flight as long as the test wants. */
let arrived!: () => void;
const checkoutArrived = new Promise<void>((resolve) => (arrived = resolve));
let release!: () => void;
const released = new Promise<void>((resolve) => (release = resolve));

const env = (port: number): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  NODE_ENV: 'test',
  HOST: '127.0.0.1',
  PORT: String(port),
  LOG_LEVEL: 'info',
  DATA_DIR: dataDir,
  APP_SECRET: 'shutdown-test-secret-0123456789abcdef012345',
  JOBS: 'true',
  HEALTH_CACHE_MS: '0',
  // Long enough for the test to see health 503 while still served, on a busy machine.
  SHUTDOWN_DELAY_MS: '3000',
  CARDLINK_API_TOKEN: TOKEN,
  CARDLINK_SHOP_ID: SHOP,
  CARDLINK_API_URL: provider.url,
  ...(pgUrl ? { DATABASE_URL: pgUrl, DATABASE_SCHEMA: schema } : {}),
});

async function withDb<T>(fn: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>): Promise<T> {
  const db = await openDatabase(loadConfig(env(0)).database);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${server?.output().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

beforeAll(async () => {
  provider = await startFake(async (req) => {
    if (req.method === 'POST' && req.path === '/api/v1/bill/create') {
      arrived();
      await released;
      return {
        json: {
          success: 'true',
          link_url: `${provider.url}/link/B1`,
          link_page_url: `${provider.url}/link/B1/page`,
          bill_id: 'B1',
        },
      };
    }
    return { status: 404, json: { success: 'false' } };
  });
  // A node for the long poll, made before the server holds the database.
  nodeToken = await withDb(async (db) => {
    await migrate(db);
    await addLocation(db, {
      slug: 'zz-shut',
      countryCode: 'XX',
      country: { en: 'Shutland', ru: 'Шатленд', zh: '关机' },
      city: { en: 'Lab', ru: 'Лаб', zh: '实验室' },
      latitude: 0,
      longitude: 0,
      premium: false,
    });
    return (await addNode(db, { location: 'zz-shut', name: 'zz-shut-1', endpointHost: '198.51.100.77' })).token;
  });
}, 60_000);

afterAll(async () => {
  if (server && server.proc.exitCode === null && server.proc.signalCode === null) {
    server.proc.kill('SIGKILL');
    await server.exited;
  }
  release?.();
  await provider?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (pgUrl) {
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    await c.query(`drop schema if exists ${schema} cascade`);
    await c.query(`drop schema if exists ${schema}_jobs cascade`);
    await c.end();
  }
});

describe('SIGTERM drains', () => {
  it(
    'health 503 at once while still serving, then stops accepting, answers the parked long poll, finishes the checkout, exits 0 with no job active',
    { timeout: 120_000 },
    async () => {
      server = await startServer(env(await freePort()));
      const s = server;
      const origin = s.origin;
      const member = await httpClient(origin);
      const reg = await member.call('POST', '/api/users/register', {
        email: `shut.${Date.now()}@example.com`,
        password: 'correct horse battery',
        password_confirmation: 'correct horse battery',
      });
      expect(reg.status).toBe(201);
      member.setToken(reg.json.data.token);

      // In flight: a checkout whose provider call the fake holds.
      const checkout = member.call('POST', '/api/billing/createPayment', {
        tariffId: 2,
        currency: 'RUB',
        provider: 'cardlink',
        idempotencyKey: 'shutdown-checkout-1',
      });
      await checkoutArrived;
      // Parked: the agent's long poll of node changes.
      const node = (url: string) => fetch(`${origin}${url}`, { headers: { authorization: `Bearer ${nodeToken}` } });
      const full = (await (await node('/api/nodes/desired')).json()) as {
        data: { version: number; evaluatedAt: number };
      };
      const longPoll = node(`/api/nodes/desired?since=${full.data.version}&at=${full.data.evaluatedAt}&wait=50`);
      await until(
        () => s.output().includes(`"url":"/api/nodes/desired?since=${full.data.version}`),
        'the long poll to arrive',
      );

      s.proc.kill('SIGTERM');
      await until(() => s.output().includes('"msg":"shutting down"'), 'the shutdown to begin');
      // The balancer's cue at once, while the instance still serves; answers close their connections.
      const health = await fetch(`${origin}/api/health`);
      expect(health.status).toBe(503);
      expect(((await health.json()) as { data: { status: string } }).data.status).toBe('draining');
      expect(health.headers.get('connection')).toBe('close');
      const during = await fetch(`${origin}/api/brand`);
      expect(during.status).toBe(200);
      expect(during.headers.get('connection')).toBe('close');
      // A second SIGTERM changes nothing.
      s.proc.kill('SIGTERM');
      await until(() => s.output().includes('"msg":"already shutting down"'), 'the second signal to be seen');

      // Then it stops accepting: a new connection is refused.
      await until(
        () =>
          fetch(`${origin}/api/health`).then(
            () => false,
            () => true,
          ),
        'the listener to close',
      );
      // The parked long poll is answered (no change: the agent asks again, elsewhere).
      const polled = await longPoll;
      expect(polled.status).toBe(200);
      expect(((await polled.json()) as { data: { version: number } }).data.version).toBe(full.data.version);
      // The checkout in flight still finishes, with its payment page.
      expect(s.proc.exitCode).toBe(null);
      release();
      const paid = await checkout;
      expect(paid.status).toBe(200);
      expect(paid.json.data.redirectUrl).toContain('/link/B1');
      expect(await s.exited, s.output().slice(-3000)).toEqual({ code: 0, signal: null });

      // Nothing half-done: the payment carries the provider's reference, and no job was left active.
      const after = await withDb(async (db) => ({
        refs: await db.query<{ provider_ref: string | null }>('select provider_ref from payments'),
        active: await db.query<{ n: number }>(
          `select count(*)::int as n from ${pgUrl ? `${schema}_jobs` : 'pgboss'}.job where state = 'active'`,
        ),
      }));
      expect(after.refs).toEqual([{ provider_ref: 'B1' }]);
      expect(after.active).toEqual([{ n: 0 }]);
    },
  );
});
