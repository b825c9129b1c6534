import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { type MetricsListener, startMetricsListener } from '../src/plugins/metrics.js';
import { type TestApp, TestClient, createTestApp, linkParams, mailTo, registerUser } from './helpers.js';
import { type RunningServer, freePort, startServer } from './server-process.js';

/**
 * /metrics: served by its own listener only (never the public port), labelled by route pattern,
 * with histograms, the database's query time and the business counters.
 */
let t: TestApp;
let listener: MetricsListener;

beforeAll(async () => {
  t = await createTestApp({ JOBS: 'false' });
  listener = await startMetricsListener(t.app.services.metrics, { host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await listener?.close();
  await t?.close();
});

const scrape = async (port = listener.port, headers: Record<string, string> = {}) => {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`, { headers });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
};

/** The value of one sample line (`name{labels} value`), or undefined when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const m = /^[^{ ]+(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const got = Object.fromEntries([...(m[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[2]);
  }
  return undefined;
}
const series = (text: string, name: string) => text.split('\n').filter((l) => l.startsWith(`${name}{`));

describe('the metrics listener', () => {
  it('counts and times requests by route pattern and status, never by the URL asked for', async () => {
    const health = () => t.app.inject({ method: 'GET', url: '/api/health' });
    for (let i = 0; i < 3; i++) expect((await health()).statusCode).toBe(200);
    // A parameterised route: the label is its pattern, whatever the id.
    for (const id of ['1', '987654', 'abc'])
      await t.app.inject({ method: 'GET', url: `/sandbox/checkout/sbx_${id.padEnd(32, '0')}` });
    // Unknown URLs (a scanner) must not create series: they share one label.
    const before = series((await scrape()).text, 'warren_http_requests_total').length;
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => t.app.inject({ method: 'GET', url: `/api/nope-${i}-${Math.random()}` })),
    );
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.app.inject({ method: 'GET', url: `/wp-admin/${i}.php?x=${i}` })),
    );
    await t.app.inject({ method: 'PROPFIND' as 'GET', url: '/api/health' });

    const { status, type, text } = await scrape();
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(text, 'warren_http_requests_total', { method: 'GET', route: '/api/health', status: '200' })).toBe(3);
    expect(
      sample(text, 'warren_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/api/health',
        status: '200',
      }),
    ).toBe(3);
    expect(
      sample(text, 'warren_http_request_duration_seconds_bucket', { route: '/api/health', status: '200', le: '+Inf' }),
    ).toBe(3);
    expect(
      sample(text, 'warren_http_request_duration_seconds_sum', { route: '/api/health', status: '200' }),
    ).toBeGreaterThan(0);
    expect(
      sample(text, 'warren_http_requests_total', { method: 'GET', route: '/sandbox/checkout/:id', status: '404' }),
    ).toBe(3);
    // /api/nope-* are 404s; /wp-admin/* may be the web app's page (200) when it is built: all under one label.
    const unmatched = series(text, 'warren_http_requests_total').filter((l) => l.includes('route="unmatched"'));
    expect(unmatched.reduce((n, l) => n + Number(l.split(' ').pop()), 0)).toBeGreaterThanOrEqual(71);
    expect(sample(text, 'warren_http_requests_total', { method: 'other', route: 'unmatched' })).toBe(1);
    const after = series(text, 'warren_http_requests_total');
    expect(after.length - before).toBeLessThanOrEqual(3); // GET unmatched 404, the odd method, the web app's page
    expect(text).not.toMatch(/nope-|wp-admin|sbx_|987654/);
  });

  it('times database queries, and shows event-loop lag and process figures', async () => {
    const { text } = await scrape();
    expect(
      sample(text, 'warren_db_query_duration_seconds_count', { operation: 'select', outcome: 'ok' }),
    ).toBeGreaterThan(0);
    expect(
      sample(text, 'warren_db_query_duration_seconds_bucket', { operation: 'select', outcome: 'ok', le: '+Inf' }),
    ).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    // A failing query is counted as an error, and no SQL text ever becomes a label.
    await expect(t.app.db.query('select * from no_such_table_here')).rejects.toThrow();
    const after = (await scrape()).text;
    expect(sample(after, 'warren_db_query_duration_seconds_count', { operation: 'select', outcome: 'error' })).toBe(1);
    expect(after).not.toContain('no_such_table_here');
  });

  it('counts sign-ups, verifications, applied payments, rejected webhooks and active subscriptions', async () => {
    const labels = { brand: 'warren-vpn' };
    const start = (await scrape()).text;
    const signups0 = sample(start, 'warren_signups_total', labels) ?? 0;
    const c = new TestClient(t.app);
    const { user } = await registerUser(c);
    const { userId, token } = linkParams((await mailTo(c, t.app, user.email))[0]!.text, '/sign-in');
    expect((await c.post('/api/users/verifyUser', { userId, token })).statusCode).toBe(200);
    // The same link again verifies nothing new.
    await c.post('/api/users/verifyUser', { userId, token });

    const pay = await c.post('/api/billing/createPayment', {
      tariffId: 2,
      currency: 'USD',
      provider: 'sandbox',
      returnPath: '/thank-you',
    });
    expect(pay.statusCode, pay.body).toBe(200);
    const sandboxId = new URL(pay.json().data.redirectUrl as string).pathname.split('/').pop()!;
    const done = await t.app.inject({
      method: 'POST',
      url: `/sandbox/checkout/${sandboxId}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'outcome=pay',
    });
    expect(done.statusCode).toBe(200);
    // A forged webhook (no valid signature) is refused and counted.
    const forged = await t.app.inject({
      method: 'POST',
      url: '/api/billing/webhooks/sandbox',
      headers: { 'content-type': 'application/json', 'sandbox-signature': 't=1,v1=00' },
      payload: '{"id":"evt_x"}',
    });
    expect(forged.statusCode).toBe(400);

    const { text } = await scrape();
    expect(sample(text, 'warren_signups_total', labels)).toBe(signups0 + 1);
    expect(sample(text, 'warren_email_verifications_total', labels)).toBe(1);
    expect(sample(text, 'warren_payments_total', { provider: 'sandbox', outcome: 'applied' })).toBe(1);
    expect(sample(text, 'warren_webhooks_rejected_total', { provider: 'sandbox' })).toBe(1);
    expect(sample(text, 'warren_active_subscriptions', { tariff: '1-month' })).toBe(1);
    expect(
      sample(text, 'warren_http_requests_total', {
        method: 'POST',
        route: '/api/billing/webhooks/:provider',
        status: '400',
      }),
    ).toBe(1);
  });

  it('still answers a scrape while the database is down, without the figures it cannot read', async () => {
    const db = t.app.db as { query: typeof t.app.db.query };
    const original = db.query;
    db.query = (async () => {
      throw new Error('connection refused');
    }) as typeof db.query;
    try {
      const { status, text } = await scrape();
      expect(status).toBe(200);
      expect(text).toContain('# TYPE warren_active_subscriptions gauge');
      expect(sample(text, 'warren_active_subscriptions', { tariff: '1-month' })).toBeUndefined();
      expect(sample(text, 'warren_http_requests_total', { method: 'GET', route: '/api/health', status: '200' })).toBe(
        3,
      );
    } finally {
      db.query = original;
    }
    expect(sample((await scrape()).text, 'warren_active_subscriptions', { tariff: '1-month' })).toBe(1);
  });

  it('counts payments refused and refunded, and renewal charges by provider and outcome (a re-run adds nothing)', async () => {
    const DAY = 86_400_000;
    const c = new TestClient(t.app);
    const { user } = await registerUser(c);
    await t.app.db.query(`update users set verified = true, account_status = 'Active' where id = $1`, [user.id]);
    const checkout = async (outcome: 'pay' | 'decline', extra: Record<string, unknown> = {}) => {
      const pay = await c.post('/api/billing/createPayment', {
        tariffId: 2,
        currency: 'USD',
        provider: 'sandbox',
        returnPath: '/thank-you',
        ...extra,
      });
      expect(pay.statusCode, pay.body).toBe(200);
      const sandboxId = new URL(pay.json().data.redirectUrl as string).pathname.split('/').pop()!;
      const done = await t.app.inject({
        method: 'POST',
        url: `/sandbox/checkout/${sandboxId}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `outcome=${outcome}`,
      });
      expect(done.statusCode).toBe(200);
    };
    const before = (await scrape()).text;
    const count = (text: string, name: string, outcome: string) =>
      sample(text, name, { provider: 'sandbox', outcome }) ?? 0;
    await checkout('decline');
    await checkout('pay', { autoRenew: true });

    const renewals = t.app.services.billing.renewals;
    const paidUntil = new Date((await renewals.infoOf(user.id)).paidUntil!);
    const due = new Date(paidUntil.getTime() - 3 * DAY + 60_000);
    expect((await renewals.renewOne(user.id, due)).outcome).toBe('renewed');
    expect((await renewals.renewOne(user.id, due)).outcome).toBe('not-due');
    const [state] = await t.app.db.query<{ method_ref: string }>(
      'select method_ref from subscription_renewals where user_id = $1',
      [user.id],
    );
    await t.app.services.sandbox!.setCard(state!.method_ref, { declineNext: true });
    const due2 = new Date(paidUntil.getTime() + 27 * DAY + 60_000);
    expect((await renewals.renewOne(user.id, due2)).outcome).toBe('failed');

    const [first] = await t.app.db.query<{ public_id: string }>(
      `select public_id from payments where user_id = $1 and status = 'succeeded' and kind = 'purchase'`,
      [user.id],
    );
    expect((await c.post(`/api/billing/payments/${first!.public_id}/refund`, {})).statusCode).toBe(200);

    const after = (await scrape()).text;
    expect(count(after, 'warren_payments_total', 'failed') - count(before, 'warren_payments_total', 'failed')).toBe(2); // the declined checkout and the declined renewal
    expect(count(after, 'warren_payments_total', 'refunded') - count(before, 'warren_payments_total', 'refunded')).toBe(
      1,
    );
    expect(count(after, 'warren_payments_total', 'applied') - count(before, 'warren_payments_total', 'applied')).toBe(
      2,
    ); // the purchase and the renewal
    expect(count(after, 'warren_renewals_total', 'renewed') - count(before, 'warren_renewals_total', 'renewed')).toBe(
      1,
    );
    expect(count(after, 'warren_renewals_total', 'failed') - count(before, 'warren_renewals_total', 'failed')).toBe(1);
  });

  it('asks for the bearer token when one is configured, and serves nothing else', async () => {
    const secured = await startMetricsListener(t.app.services.metrics, {
      host: '127.0.0.1',
      port: 0,
      token: 'a-long-scrape-token-123',
    });
    try {
      expect((await scrape(secured.port)).status).toBe(401);
      expect((await scrape(secured.port, { authorization: 'Bearer a-long-scrape-token-12' })).status).toBe(401);
      expect((await scrape(secured.port, { authorization: 'Basic a-long-scrape-token-123' })).status).toBe(401);
      const ok = await scrape(secured.port, { authorization: 'Bearer a-long-scrape-token-123' });
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('warren_http_requests_total');
      expect((await fetch(`http://127.0.0.1:${secured.port}/metrics`, { method: 'POST' })).status).toBe(405);
      expect((await fetch(`http://127.0.0.1:${secured.port}/`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${secured.port}/api/health`)).status).toBe(404);
    } finally {
      await secured.close();
    }
  });
});

describe('job queues', () => {
  it('shows jobs by queue and state where the job engine runs', { timeout: 60_000 }, async () => {
    const withJobs = await createTestApp({ JOBS: 'true' });
    const l = await startMetricsListener(withJobs.app.services.metrics, { host: '127.0.0.1', port: 0 });
    try {
      const { status, text } = await scrape(l.port);
      expect(status).toBe(200);
      for (const queue of ['billing-pass', 'billing-renew', 'postbacks'])
        for (const state of ['ready', 'active', 'failed'])
          expect(sample(text, 'warren_job_queue_jobs', { queue, state }), `${queue} ${state}`).toBeGreaterThanOrEqual(
            0,
          );
    } finally {
      await l.close();
      await withJobs.close();
    }
    // Without the job engine (JOBS=false, as above) there is no such series, and nothing boots pg-boss for a scrape.
    expect((await scrape()).text).not.toContain('warren_job_queue_jobs');
  });
});

describe('the public port', () => {
  it('refuses /metrics however it is spelt', async () => {
    for (const url of [
      '/metrics',
      '/metrics/',
      '/metrics?x=1',
      '/%6detrics',
      '/METRICS',
      '/api/../metrics',
      '/./metrics',
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(
        res.statusCode === 404 || res.headers['content-type']?.toString().startsWith('text/html'),
        `${url}: ${res.statusCode}`,
      ).toBe(true);
      expect(res.body, url).not.toMatch(/warren_|# HELP|process_cpu/);
    }
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
  });
});

describe('configuration', () => {
  const base = { NODE_ENV: 'test', DATA_DIR: os.tmpdir() };
  it('is off unless METRICS_PORT is set, and never off-machine without a token', () => {
    expect(loadConfig(base).metrics).toBeUndefined();
    expect(loadConfig({ ...base, METRICS_PORT: '9464' }).metrics).toEqual({
      host: '127.0.0.1',
      port: 9464,
      token: undefined,
    });
    expect(() => loadConfig({ ...base, METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' })).toThrow(
      /METRICS_TOKEN_FILE: is required when METRICS_HOST/,
    );
    expect(() => loadConfig({ ...base, METRICS_PORT: '9464', METRICS_TOKEN_FILE: '/nonexistent/token' })).toThrow(
      ConfigError,
    );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-metrics-'));
    try {
      fs.writeFileSync(path.join(dir, 'short'), 'short\n');
      expect(() => loadConfig({ ...base, METRICS_PORT: '9464', METRICS_TOKEN_FILE: path.join(dir, 'short') })).toThrow(
        /at least 16/,
      );
      fs.writeFileSync(path.join(dir, 'token'), 'a-long-scrape-token-123\n');
      expect(
        loadConfig({
          ...base,
          METRICS_PORT: '9464',
          METRICS_HOST: '0.0.0.0',
          METRICS_TOKEN_FILE: path.join(dir, 'token'),
        }).metrics,
      ).toEqual({
        host: '0.0.0.0',
        port: 9464,
        token: 'a-long-scrape-token-123',
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the server process', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'warren-metrics-srv-'));
  const pgUrl = process.env.TEST_DATABASE_URL;
  const schema = `metrics_${process.pid}`;
  let running: RunningServer | undefined;
  afterAll(async () => {
    if (running && running.proc.exitCode === null && running.proc.signalCode === null) {
      running.proc.kill('SIGKILL');
      await running.exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (pgUrl) {
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    }
  });

  it('serves /metrics on METRICS_PORT only, and closes it on SIGTERM', { timeout: 120_000 }, async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    running = await startServer({
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'info',
      DATA_DIR: dataDir,
      JOBS: 'false',
      ...(pgUrl ? { DATABASE_URL: pgUrl, DATABASE_SCHEMA: schema } : {}),
    });
    expect((await fetch(`${running.origin}/api/health`)).status).toBe(200);
    const pub = await fetch(`${running.origin}/metrics`);
    expect(pub.status).toBe(404);
    expect(await pub.text()).not.toContain('warren_');
    const { status, text } = await scrape(metricsPort);
    expect(status).toBe(200);
    expect(sample(text, 'warren_http_requests_total', { method: 'GET', route: '/api/health', status: '200' })).toBe(1);
    expect(sample(text, 'warren_active_subscriptions')).toBeUndefined(); // no paid plan yet: no series
    running.proc.kill('SIGTERM');
    expect((await running.exited).code).toBe(0);
    await expect(fetch(`http://127.0.0.1:${metricsPort}/metrics`)).rejects.toThrow();
  });
});
