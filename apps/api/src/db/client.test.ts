import { describe, expect, it } from 'vitest';
import { DatabaseUnavailableError } from '../lib/errors.js';
import { isDatabaseUnavailable, openDatabase, retryWhileUnavailable } from './client.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable: a lost database, not a failed statement', () => {
  it('knows a server going away, starting up, full, and the connection errors', () => {
    for (const code of [
      '57P01',
      '57P02',
      '57P03',
      '53300',
      '08006',
      '08001',
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
    ])
      expect(isDatabaseUnavailable(withCode(code)), code).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Client has encountered a connection error and is not queryable'))).toBe(
      true,
    );
    expect(isDatabaseUnavailable(new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')]))).toBe(true);
    expect(isDatabaseUnavailable(new DatabaseUnavailableError())).toBe(true);
  });

  it('leaves statements that failed alone: a unique violation, a syntax error, a serialization failure', () => {
    for (const code of ['23505', '42601', '40001', '22P02'])
      expect(isDatabaseUnavailable(withCode(code)), code).toBe(false);
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
    await expect(
      retryWhileUnavailable(async () => {
        calls++;
        throw withCode('23505');
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(calls).toBe(1);
    await expect(
      retryWhileUnavailable(async () => {
        throw withCode('ECONNREFUSED');
      }, 50),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});

const pgUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!pgUrl)('withLock on PostgreSQL: a lost lock is said, not kept silently', () => {
  it("aborts the holder's signal when the lock's connection dies, and another instance may then take the lock", async () => {
    const schema = `lock_${Date.now().toString(36)}_${process.pid}`;
    const a = await openDatabase({ kind: 'postgres', url: pgUrl!, schema });
    const b = await openDatabase({ kind: 'postgres', url: pgUrl!, schema });
    const key = [727_999, process.pid] as const;
    try {
      const seen = await a.withLock(key, async (lock) => {
        expect(lock.signal.aborted).toBe(false);
        // The backend that holds the advisory lock (two int4 keys: classid, objid, objsubid 2).
        const [holder] = await b.query<{ pid: number }>(
          `select pid from pg_locks where locktype = 'advisory' and classid = $1 and objid = $2 and objsubid = 2 and granted`,
          [...key],
        );
        expect(holder).toBeDefined();
        const lost = new Promise<unknown>((resolve) =>
          lock.signal.addEventListener('abort', () => resolve(lock.signal.reason), { once: true }),
        );
        await b.query('select pg_terminate_backend($1)', [holder!.pid]);
        const reason = await lost;
        // The lock is gone with its session: the other instance gets it while this holder still runs.
        const other = await b.withLock(key, async () => 'taken by b');
        return {
          reason,
          other,
          aborted: lock.signal.aborted,
          threw: (() => {
            try {
              lock.signal.throwIfAborted();
              return null;
            } catch (err) {
              return err;
            }
          })(),
        };
      });
      expect(seen.aborted).toBe(true);
      expect(seen.reason).toBeInstanceOf(DatabaseUnavailableError);
      expect(seen.threw).toBeInstanceOf(DatabaseUnavailableError);
      expect(seen.other).toBe('taken by b');
      // The next holder gets a live lock.
      expect(await a.withLock(key, async (lock) => lock.signal.aborted)).toBe(false);
    } finally {
      await b.exec(`drop schema if exists ${schema} cascade`).catch(() => undefined);
      await a.close();
      await b.close();
    }
  });
});
