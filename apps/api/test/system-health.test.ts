import { expect, it } from 'vitest';
import type { Database } from '../src/db/client.js';
import { createTestApp } from './helpers.js';

it('answers 503 with the error shape when the database is unreachable, and ok again when it is back', async () => {
  const t = await createTestApp({ JOBS: 'false', HEALTH_CACHE_MS: '0' });
  const real = t.app.db;
  let down = false;
  // Stand in for an outage: every query fails while "down".
  const original = real.query.bind(real);
  (real as { query: Database['query'] }).query = ((sql: string, params?: readonly unknown[]) =>
    down ? Promise.reject(new Error('connection refused')) : original(sql, params)) as Database['query'];
  try {
    expect((await t.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
    down = true;
    const res = await t.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ message: 'The database is unreachable.', data: { db: 'unreachable' } });
    down = false;
    expect((await t.app.inject({ method: 'GET', url: '/api/health' })).json()).toEqual({
      data: { status: 'ok', db: 'ok' },
    });
  } finally {
    down = false;
    await t.close();
  }
});

it('answers a burst of health checks with one database round trip', async () => {
  const t = await createTestApp({ JOBS: 'false' });
  const real = t.app.db;
  const original = real.query.bind(real);
  let pings = 0;
  (real as { query: Database['query'] }).query = ((sql: string, params?: readonly unknown[]) => {
    if (sql === 'select 1') pings++;
    return original(sql, params);
  }) as Database['query'];
  try {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => t.app.inject({ method: 'GET', url: '/api/health' })),
    );
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    expect((await t.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
    expect(pings).toBe(1);
  } finally {
    await t.close();
  }
});
