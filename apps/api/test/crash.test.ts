import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';
import { hmac } from '../src/lib/secrets.js';
import { type SandboxEvent, signSandbox } from '../src/payments/sandbox.js';
import { freePort, httpClient as client, startServer as start } from './server-process.js';

const startServer = async (env: Record<string, string>, entry?: string) => {
  const s = await start(env, entry);
  child = s.proc;
  return s;
};

/**
 * The real server is SIGKILLed between payment capture and activation (test/fault-server.ts injects
 * the fault through the composition's test seam), restarted without the fault, and the provider retries once.
 * It must converge: the plan extended exactly once, the payment succeeded and applied, the
 * account Active; never a paid-but-inactive user, never a double extension.
 */
const APP_SECRET = 'crash-test-secret-0123456789abcdef0123456789';
const pgUrl = process.env.TEST_DATABASE_URL;
const schema = `crash_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-crash-'));
let child: ChildProcess | undefined;

function serverEnv(port: number, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    APP_SECRET,
    JOBS: 'false',
    ...(pgUrl ? { DATABASE_URL: pgUrl, DATABASE_SCHEMA: schema } : {}),
    ...extra,
  };
}

/** Opens the same database the server uses (only while no server runs on a PGlite data dir). */
async function withDb<T>(fn: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>): Promise<T> {
  const config = loadConfig(serverEnv(0));
  const db = await openDatabase(config.database);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (pgUrl) {
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    await c.query(`drop schema if exists ${schema} cascade`);
    await c.end();
  }
});

describe('crash between capture and activation', () => {
  it('converges after a restart and one provider retry: extended once, applied, Active', async () => {
    const port = await freePort();

    // 1. A customer pays with the sandbox; the webhook handler dies right after the capture is confirmed.
    const first = await startServer(serverEnv(port), path.join(import.meta.dirname, 'fault-server.ts'));
    const c1 = await client(first.origin);
    const email = `crash.${Date.now()}@example.com`;
    const reg = await c1.call('POST', '/api/users/register', {
      name: 'Crash Test',
      email,
      password: 'correct horse battery',
      password_confirmation: 'correct horse battery',
    });
    expect(reg.status).toBe(201);
    const userId = reg.json.data.user.id as number;
    c1.setToken(reg.json.data.token);
    const created = await c1.call('POST', '/api/billing/createPayment', {
      tariffId: 2,
      currency: 'USD',
      provider: 'sandbox',
      idempotencyKey: 'crash-test-key-1',
    });
    expect(created.status).toBe(200);
    const paymentId = created.json.data.paymentId as string;
    const sandboxId = new URL(created.json.data.redirectUrl).pathname.split('/').pop()!;
    const press = fetch(`${first.origin}/sandbox/checkout/${sandboxId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'outcome=pay',
    });
    await expect(press).rejects.toThrow(); // the connection dies with the process
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

    // 2. The crash hit the window: the provider captured and we recorded its event, but nothing was applied.
    const window = await withDb(async (db) => ({
      payment: (
        await db.query<{ status: string; applied: boolean }>(
          'select status, applied from payments where public_id = $1',
          [paymentId],
        )
      )[0],
      user: (
        await db.query<{ tariff_key: string; account_status: string }>(
          'select tariff_key, account_status from users where id = $1',
          [userId],
        )
      )[0],
      sandbox: (
        await db.query<{ status: string; pending_events: SandboxEvent[] }>(
          'select status, pending_events from sandbox_payments where id = $1',
          [sandboxId],
        )
      )[0]!,
      events: await db.query<{ event_id: string }>(`select event_id from provider_events where provider = 'sandbox'`),
    }));
    expect(window.payment).toEqual({ status: 'pending', applied: false });
    expect(window.user!.tariff_key).toBe('free-plan');
    expect(window.sandbox.status).toBe('paid');
    expect(window.sandbox.pending_events).toHaveLength(1); // never acknowledged: the provider will retry it
    const event = window.sandbox.pending_events[0]!;
    expect(window.events.map((e) => e.event_id)).toEqual([event.id]);

    // 3. Restart without the fault; the provider retries the unacknowledged event once.
    const second = await startServer(serverEnv(port));
    const body = JSON.stringify(event);
    const secret = hmac(APP_SECRET, 'sandbox-webhooks');
    const retry = () =>
      fetch(`${second.origin}/api/billing/webhooks/sandbox`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'sandbox-signature': signSandbox(secret, body, Math.floor(Date.now() / 1000)),
        },
        body,
      });
    expect((await retry()).status).toBe(200);

    const c2 = await client(second.origin);
    c2.setToken(reg.json.data.token); // the token survived the crash
    const me = (await c2.call('GET', '/api/users/info/get')).json.data;
    expect(me.accountStatus).toBe('Active');
    expect(me.subscriptionData.tariffKey).toBe('1-month');
    const expires = new Date(me.subscriptionData.expiresAt).getTime();
    expect(Math.abs(expires - (Date.now() + 30 * 86_400_000))).toBeLessThan(120_000);
    // More retries (the provider does not know we applied it) change nothing.
    expect((await retry()).status).toBe(200);
    expect((await c2.call('GET', '/api/users/info/get')).json.data.subscriptionData.expiresAt).toBe(
      me.subscriptionData.expiresAt,
    );
    const plan = (await c2.call('GET', '/api/billing/getPlanInfo')).json.data;
    expect(plan.payments).toHaveLength(1);
    expect(plan.payments[0]).toMatchObject({ id: paymentId, status: 'succeeded' });

    second.proc.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    const after = await withDb(async (db) => ({
      payments: await db.query<{ status: string; applied: boolean }>(
        'select status, applied from payments where user_id = $1',
        [userId],
      ),
      events: await db.query<{ n: number }>(
        `select count(*)::int as n from provider_events where provider = 'sandbox' and event_id = $1`,
        [event.id],
      ),
    }));
    expect(after.payments).toEqual([{ status: 'succeeded', applied: true }]);
    expect(after.events).toEqual([{ n: 1 }]);
  }, 120_000);

  it('the fault is a seam only a test entry injects: no production code reads a fault switch from the environment', () => {
    const src = path.join(import.meta.dirname, '../src');
    const files = fs.readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(20);
    expect(files.filter((f) => fs.readFileSync(path.join(src, f), 'utf8').includes('WARREN_FAULT'))).toEqual([]);
  });
});
