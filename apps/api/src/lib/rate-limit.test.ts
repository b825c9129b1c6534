import { describe, expect, it } from 'vitest';
import { createMemoryRateLimiter, createRedisRateLimiter } from './rate-limit.js';

describe('memory limiter', () => {
  it('counts within a window and starts over after it', async () => {
    let now = 1_000;
    const l = createMemoryRateLimiter(() => now);
    expect((await l.hit('k', 1000)).count).toBe(1);
    expect((await l.hit('k', 1000)).count).toBe(2);
    now += 1001;
    expect((await l.hit('k', 1000)).count).toBe(1);
  });
});

describe('redis limiter', () => {
  const url = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  it('always gives a window an expiry', async () => {
    const prefix = `warren:test:${process.pid}:${Date.now()}:`;
    const l = createRedisRateLimiter(url, prefix);
    try {
      const first = await l.hit('a', 60_000);
      const second = await l.hit('a', 60_000);
      expect(first.count).toBe(1);
      expect(second.count).toBe(2);
      expect(second.resetInS).toBeGreaterThan(50);
      expect((await l.peek('a')).count).toBe(2);
      await l.reset('a');
      expect((await l.peek('a')).count).toBe(0);
    } finally {
      await l.close();
    }
  });

  it('falls back to counting in memory when Redis is unreachable', async () => {
    const failures: unknown[] = [];
    // Port 1 on loopback: nothing listens there, the connection is refused at once.
    const l = createRedisRateLimiter('redis://127.0.0.1:1', 'x:', (e) => failures.push(e));
    try {
      expect((await l.hit('b', 60_000)).count).toBe(1);
      expect((await l.hit('b', 60_000)).count).toBe(2);
      expect(failures.length).toBeGreaterThan(0);
    } finally {
      await l.close();
    }
  });
});
