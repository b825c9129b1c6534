import { Redis } from 'ioredis';

/**
 * Fixed-window counters. In memory for one instance; in Redis (REDIS_URL) so that several API
 * instances share one budget.
 */
export interface RateLimiter {
  /** Adds one hit and returns the count in the current window and the seconds until it resets. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetInS: number }>;
  peek(key: string): Promise<{ count: number; resetInS: number }>;
  reset(key: string): Promise<void>;
  close(): Promise<void>;
}

export function createMemoryRateLimiter(now: () => number = Date.now): RateLimiter {
  const windows = new Map<string, { count: number; resetAt: number }>();
  const live = (key: string) => {
    const w = windows.get(key);
    if (w && w.resetAt <= now()) {
      windows.delete(key);
      return undefined;
    }
    return w;
  };
  return {
    async hit(key, windowMs) {
      let w = live(key);
      if (!w) {
        if (windows.size > 100_000) for (const k of windows.keys()) live(k); // sweep expired windows
        w = { count: 0, resetAt: now() + windowMs };
        windows.set(key, w);
      }
      w.count += 1;
      return { count: w.count, resetInS: (w.resetAt - now()) / 1000 };
    },
    async peek(key) {
      const w = live(key);
      return w ? { count: w.count, resetInS: (w.resetAt - now()) / 1000 } : { count: 0, resetInS: 0 };
    },
    async reset(key) {
      windows.delete(key);
    },
    async close() {},
  };
}

export function createRedisRateLimiter(url: string, prefix = 'warren:rl:'): RateLimiter {
  const redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
  redis.on('error', () => {
    /* surfaced on the next command */
  });
  return {
    async hit(key, windowMs) {
      const k = prefix + key;
      const [[, count], [, ttl]] = (await redis.multi().incr(k).pttl(k).exec()) as [[null, number], [null, number]];
      let resetMs = ttl;
      if (ttl < 0) {
        await redis.pexpire(k, windowMs);
        resetMs = windowMs;
      }
      return { count, resetInS: resetMs / 1000 };
    },
    async peek(key) {
      const k = prefix + key;
      const [[, count], [, ttl]] = (await redis.multi().get(k).pttl(k).exec()) as [[null, string | null], [null, number]];
      return { count: Number(count ?? 0), resetInS: Math.max(0, ttl) / 1000 };
    },
    async reset(key) {
      await redis.del(prefix + key);
    },
    async close() {
      redis.disconnect();
    },
  };
}
