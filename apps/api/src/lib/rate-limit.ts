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

/**
 * Redis-backed limiter. The window is created and counted in one MULTI (SET NX PX, INCR, PTTL),
 * so a crash can never leave a counter without an expiry. If Redis is unreachable the limiter
 * falls back to counting in memory for this instance rather than failing the request.
 */
export function createRedisRateLimiter(url: string, prefix = 'warren:rl:', onFallback: (err: unknown) => void = () => {}): RateLimiter {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 });
  redis.on('error', () => {
    /* surfaced by the next command, which falls back */
  });
  const local = createMemoryRateLimiter();
  const guarded = async <T>(fn: () => Promise<T>, fallback: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      onFallback(err);
      return fallback();
    }
  };
  return {
    hit: (key, windowMs) =>
      guarded(async () => {
        const k = prefix + key;
        const replies = (await redis.multi().set(k, '0', 'PX', windowMs, 'NX').incr(k).pttl(k).exec()) ?? [];
        const count = Number(replies[1]?.[1] ?? 0);
        const ttl = Number(replies[2]?.[1] ?? windowMs);
        return { count, resetInS: Math.max(0, ttl) / 1000 };
      }, () => local.hit(key, windowMs)),
    peek: (key) =>
      guarded(async () => {
        const k = prefix + key;
        const replies = (await redis.multi().get(k).pttl(k).exec()) ?? [];
        return { count: Number(replies[0]?.[1] ?? 0), resetInS: Math.max(0, Number(replies[1]?.[1] ?? 0)) / 1000 };
      }, () => local.peek(key)),
    reset: (key) => guarded(async () => void (await redis.del(prefix + key)), () => local.reset(key)),
    async close() {
      redis.disconnect();
    },
  };
}
