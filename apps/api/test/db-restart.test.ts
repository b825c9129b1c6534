import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivatePostgres, hasPrivatePostgres, privatePostgres } from './private-postgres.js';
import { type HttpAnswer, type RunningServer, freePort, httpClient, startServer } from './server-process.js';

/**
 * Issue 22, faults: the real server on a real PostgreSQL that this test starts, restarts (fast and
 * immediate: sessions ended politely, then killed as in a crash) and stops, under sign-ups and
 * checkouts. The server must never exit, must answer 503 with Retry-After while the database is away
 * (never a 500, never a refused connection), work again once it is back, and leave no checkout
 * without its provider reference (the buyer's retry with the same idempotency key completes one
 * that the outage interrupted). Before the fix the first restart ended the process: a connection
 * held by a transaction had no error listener.
 *
 * The cluster is the test's own (temp dir, own port): the machine's PostgreSQL is never touched.
 * It runs in the PostgreSQL lane only (TEST_DATABASE_URL set), where PostgreSQL is installed.
 */
const enabled = !!process.env.TEST_DATABASE_URL && hasPrivatePostgres();
const PASSWORD = 'correct horse battery';
let db: PrivatePostgres;
let server: RunningServer;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-dbr-'));

/** A request's outcome, or how its connection failed: a refused or reset connection is an outcome the test forbids. */
type Outcome =
  { status: number; retryAfter: string | null; json: HttpAnswer['json'] } | { status: 'network'; error: string };

async function call(
  client: Awaited<ReturnType<typeof httpClient>>,
  method: string,
  url: string,
  body?: unknown,
): Promise<Outcome> {
  try {
    const r = await client.call(method, url, body);
    return { status: r.status, retryAfter: r.headers.get('retry-after'), json: r.json };
  } catch (err) {
    return { status: 'network', error: String((err as Error).cause ?? err) };
  }
}

/** Every answer is a success or a 503 that tells when to come back; anything else (500, reset, refused) is listed. */
const unacceptable = (outcomes: Outcome[]) =>
  outcomes.filter((o) => !(o.status === 200 || o.status === 201 || (o.status === 503 && Number(o.retryAfter) >= 1)));

const alive = () => server.proc.exitCode === null && server.proc.signalCode === null;

async function until(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${server.output().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Checkout {
  client: Awaited<ReturnType<typeof httpClient>>;
  key: string;
  outcome: Outcome;
}
const checkouts: Checkout[] = [];
let serial = 0;

/** One customer: signs up and starts a checkout (the writes the run made). */
async function customer(): Promise<Outcome[]> {
  const n = ++serial;
  let client: Awaited<ReturnType<typeof httpClient>>;
  try {
    client = await httpClient(server.origin);
  } catch (err) {
    return [{ status: 'network', error: String((err as Error).cause ?? err) }];
  }
  const reg = await call(client, 'POST', '/api/users/register', {
    email: `dbr.${n}.${Date.now()}@example.com`,
    password: PASSWORD,
    password_confirmation: PASSWORD,
  });
  if (reg.status !== 201) return [reg];
  client.setToken((reg as { json: HttpAnswer['json'] }).json.data.token);
  const key = `dbr-checkout-${n}-${Date.now()}`;
  const outcome = await call(client, 'POST', '/api/billing/createPayment', {
    tariffId: 2,
    currency: 'USD',
    provider: 'sandbox',
    idempotencyKey: key,
  });
  checkouts.push({ client, key, outcome });
  return [reg, outcome];
}

/** `workers` customers at a time until `stop` says so; every outcome is kept. */
function load(workers: number) {
  const outcomes: Outcome[] = [];
  let stopped = false;
  const loops = Array.from({ length: workers }, async () => {
    while (!stopped && alive()) outcomes.push(...(await customer()));
  });
  return {
    outcomes,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

const health = async () => {
  try {
    return (await fetch(`${server.origin}/api/health`)).status;
  } catch {
    return 0;
  }
};

describe.skipIf(!enabled)('a PostgreSQL restart under writes', () => {
  beforeAll(async () => {
    db = await privatePostgres();
    server = await startServer({
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(await freePort()),
      LOG_LEVEL: 'info',
      DATA_DIR: dataDir,
      DATABASE_URL: db.url,
      APP_SECRET: 'db-restart-test-secret-0123456789abcdef0123',
      // The job engine runs too: its own connections see the restart as well.
      JOBS: 'true',
      HEALTH_CACHE_MS: '0',
      LIMIT_REGISTER_PER_IP: '100000',
    });
  }, 60_000);

  afterAll(async () => {
    if (server && alive()) {
      server.proc.kill('SIGKILL');
      await server.exited;
    }
    await db?.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'rides out restarts and an outage: 503 with Retry-After meanwhile, never exits, every checkout gets its provider reference',
    { timeout: 90_000 },
    async () => {
      // 1. Restarts while customers sign up and check out, four at a time.
      const during = load(4);
      for (const mode of ['immediate', 'fast'] as const) {
        const before = during.outcomes.length;
        await until(() => during.outcomes.length >= before + 8, 'writes before the restart');
        await db.restart(mode);
        expect(alive(), server.output().slice(-3000)).toBe(true);
        const after = during.outcomes.length;
        await until(
          () =>
            !alive() ||
            (during.outcomes.filter((o) => o.status === 201).length > 0 && during.outcomes.length >= after + 8),
          'writes after the restart',
        );
      }
      await during.stop();
      expect(alive(), server.output().slice(-3000)).toBe(true);
      expect(unacceptable(during.outcomes)).toEqual([]);

      // 2. The database is away: every kind of request says 503 and when to come back, at once.
      await db.stop('immediate');
      const away = [
        ...(await customer()),
        ...(await Promise.all(
          checkouts.slice(0, 3).map((c) =>
            call(c.client, 'POST', '/api/billing/createPayment', {
              tariffId: 2,
              currency: 'USD',
              provider: 'sandbox',
              idempotencyKey: c.key,
            }),
          ),
        )),
        await call(checkouts[0]!.client, 'GET', '/api/users/info/get'),
        await call(checkouts[0]!.client, 'POST', '/api/users/login', {
          email: 'nobody@example.com',
          password: PASSWORD,
        }),
      ];
      expect(alive()).toBe(true);
      expect(away.map((o) => o.status)).toEqual(away.map(() => 503));
      expect(unacceptable(away)).toEqual([]);
      expect(await health()).toBe(503);

      // 3. Back: every request works again, and the buyers whose checkout the outage interrupted retry it
      //    with the same idempotency key (as the web app does) and get their payment page.
      await db.start();
      await until(async () => (await health()) === 200, 'health after the database came back');
      const back = load(2);
      await until(() => back.outcomes.length >= 6, 'writes after the outage');
      await back.stop();
      expect(back.outcomes.filter((o) => o.status !== 200 && o.status !== 201)).toEqual([]);
      for (const c of checkouts.filter((c) => c.outcome.status !== 200)) {
        const retried = await call(c.client, 'POST', '/api/billing/createPayment', {
          tariffId: 2,
          currency: 'USD',
          provider: 'sandbox',
          idempotencyKey: c.key,
        });
        expect(retried.status).toBe(200);
        c.outcome = retried;
      }
      expect(alive()).toBe(true);

      // 4. No checkout is left without its provider reference, and each answered one names the page it got.
      const direct = new pg.Client({ connectionString: db.url });
      await direct.connect();
      try {
        const rows = (
          await direct.query<{ public_id: string; provider_ref: string | null }>(
            'select public_id, provider_ref from payments',
          )
        ).rows;
        expect(rows.length).toBeGreaterThan(10);
        expect(rows.filter((r) => r.provider_ref === null)).toEqual([]);
        const refs = new Map(rows.map((r) => [r.public_id, r.provider_ref]));
        for (const c of checkouts) {
          const data = (c.outcome as { json: HttpAnswer['json'] }).json.data as {
            paymentId: string;
            redirectUrl: string;
          };
          expect(new URL(data.redirectUrl).pathname).toBe(`/sandbox/checkout/${refs.get(data.paymentId)}`);
        }
      } finally {
        await direct.end();
      }
      // No 500 was logged.
      expect(server.output()).not.toContain('unhandled error');
    },
  );

  it('SIGTERM while the database is away still drains and exits 0 within the grace', { timeout: 60_000 }, async () => {
    const client = await httpClient(server.origin);
    await db.stop('immediate');
    const started = Date.now();
    server.proc.kill('SIGTERM');
    const during = await call(client, 'POST', '/api/users/register', {
      email: `dbr.term.${Date.now()}@example.com`,
      password: PASSWORD,
      password_confirmation: PASSWORD,
    });
    // Answered 503 (database away, or already closing), or refused once the listener closed: never a 500.
    if (during.status !== 'network') expect(during.status).toBe(503);
    expect(await server.exited, server.output().slice(-3000)).toEqual({ code: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(server.output()).toContain('"msg":"shut down"');
  });
});
