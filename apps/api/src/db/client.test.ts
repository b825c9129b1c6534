import { describe, expect, it } from 'vitest';
import { DatabaseUnavailableError } from '../lib/errors.js';
import { isDatabaseUnavailable, retryWhileUnavailable } from './client.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable: a lost database, not a failed statement', () => {
  it('knows a server going away, starting up, full, and the connection errors', () => {
    for (const code of ['57P01', '57P02', '57P03', '53300', '08006', '08001', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT']) expect(isDatabaseUnavailable(withCode(code)), code).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Client has encountered a connection error and is not queryable'))).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')]))).toBe(true);
    expect(isDatabaseUnavailable(new DatabaseUnavailableError())).toBe(true);
  });

  it('leaves statements that failed alone: a unique violation, a syntax error, a serialization failure', () => {
    for (const code of ['23505', '42601', '40001', '22P02']) expect(isDatabaseUnavailable(withCode(code)), code).toBe(false);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
  });

  it('is a 503 with Retry-After', () => {
    const e = new DatabaseUnavailableError();
    expect(e.status).toBe(503);
    expect(Number(e.headers?.['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});

describe('retryWhileUnavailable', () => {
  it('tries again while the database is away and returns once it answers', async () => {
    let calls = 0;
    const value = await retryWhileUnavailable(async () => {
      if (++calls < 3) throw withCode('57P03');
      return 'ok';
    });
    expect([value, calls]).toEqual(['ok', 3]);
  });

  it('throws any other error at once, and a lasting outage once its time is up', async () => {
    let calls = 0;
    await expect(retryWhileUnavailable(async () => { calls++; throw withCode('23505'); })).rejects.toMatchObject({ code: '23505' });
    expect(calls).toBe(1);
    await expect(retryWhileUnavailable(async () => { throw withCode('ECONNREFUSED'); }, 50)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
