import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMemoryRateLimiter, createRedisRateLimiter, type LimitRule, type RateLimiter } from './rate-limit.js';

const url = process.env.REDIS_TEST_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** What every limiter must do, in memory and on Redis alike. */
function contract(name: string, make: () => RateLimiter) {
  describe(name, () => {
    it('counts before the verdict: 60 parallel tries, exactly the budget allowed', async () => {
      const l = make();
      const rule: LimitRule = { name: `test-${randomBytes(4).toString('hex')}`, max: 10, windowMs: 60_000 };
      try {
        const verdicts = await Promise.all(Array.from({ length: 60 }, () => l.consume(rule, 'k')));
        expect(verdicts.filter((v) => v.allowed)).toHaveLength(10);
        const refused = verdicts.find((v) => !v.allowed);
        expect(refused && !refused.allowed && refused.retryAfterS).toBeGreaterThan(50);
        expect((await l.peek(rule, 'k')).count).toBe(60);
      } finally {
        await l.close();
      }
    });

    it('gives refunded points back and forgets a reset key', async () => {
      const l = make();
      const rule: LimitRule = { name: `test-${randomBytes(4).toString('hex')}`, max: 2, windowMs: 60_000 };
      try {
        expect((await l.consume(rule, 'k')).allowed).toBe(true);
        expect((await l.consume(rule, 'k')).allowed).toBe(true);
        await l.refund(rule, 'k');
        expect((await l.consume(rule, 'k')).allowed).toBe(true);
        expect((await l.consume(rule, 'k')).allowed).toBe(false);
        await l.reset(rule, 'k');
        expect((await l.peek(rule, 'k')).count).toBe(0);
        expect((await l.consume(rule, 'k')).allowed).toBe(true);
      } finally {
        await l.close();
      }
    });
  });
}

contract('memory limiter', createMemoryRateLimiter);
contract('redis limiter', () => createRedisRateLimiter(url));

describe('redis limiter without Redis', () => {
  it('falls back to counting in memory and says so', async () => {
    const failures: unknown[] = [];
    // Port 1 on loopback: nothing listens there, the connection is refused at once.
    const l = createRedisRateLimiter('redis://127.0.0.1:1', (e) => failures.push(e));
    const rule: LimitRule = { name: 'fallback', max: 1, windowMs: 60_000 };
    try {
      expect((await l.consume(rule, 'b')).allowed).toBe(true);
      expect((await l.consume(rule, 'b')).allowed).toBe(false);
      expect(failures.length).toBeGreaterThan(0);
    } finally {
      await l.close();
    }
  });
});
