import { createHash } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Queryable } from '../db/client.js';

/**
 * Rate limits on rate-limiter-flexible: a try is counted atomically (one Lua script on Redis, one
 * synchronous step in memory) and the verdict comes from that same count, so N parallel tries can
 * never be evaluated more than the budget allows. Callers count BEFORE they evaluate, and give the
 * point back (`refund`/`reset`) when the try turns out fine.
 */
export interface LimitRule {
  /** Names the counter (the Redis key prefix); one name, one budget. */
  name: string;
  max: number;
  windowMs: number;
  /**
   * The key is a client address: counted per /64 for IPv6 (one customer line gets a whole /64, so
   * per address every try could come from a fresh one), per address for IPv4 (IPv4-mapped IPv6 too).
   */
  address?: true;
}

/**
 * The budget key of a client address: an IPv6 address stands for its /64, an IPv4-mapped one for the
 * IPv4 address; anything unparsable (a test's made-up name) is used as it is.
 */
export function addressKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  let a = ipaddr.parse(ip);
  if (a instanceof ipaddr.IPv6 && a.isIPv4MappedAddress()) a = a.toIPv4Address();
  if (a instanceof ipaddr.IPv4) return a.toString();
  return `${new ipaddr.IPv6([...a.parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}

export type Verdict = { allowed: true; remaining: number } | { allowed: false; retryAfterS: number };

export interface RateLimiter {
  /** Counts `points` for `key` and says whether the count is still within the rule's budget. */
  consume(rule: LimitRule, key: string, points?: number): Promise<Verdict>;
  /** Gives points back (a try that succeeded should not use up the budget). */
  refund(rule: LimitRule, key: string, points?: number): Promise<void>;
  /** The count so far, without counting. */
  peek(rule: LimitRule, key: string): Promise<{ count: number; retryAfterS: number }>;
  reset(rule: LimitRule, key: string): Promise<void>;
  close(): Promise<void>;
}

const PREFIX = 'warren:rl';

type Store = (rule: LimitRule) => RateLimiterAbstract;

/**
 * The stored key: a digest, never the key itself. Budgets are kept per email and per address, and
 * a budget row (Redis key or rate_limits row) outlives an account deleted within its window; a
 * digest names nobody (issue 20: personal data must not outlive its owner).
 */
export const storedBudgetKey = (key: string) => createHash('sha256').update(key).digest('base64url');
const keyOf = (rule: LimitRule, key: string) => storedBudgetKey(rule.address ? addressKey(key) : key);

function fromStore(store: Store): Omit<RateLimiter, 'close'> {
  return {
    async consume(rule, key, points = 1) {
      try {
        const res = await store(rule).consume(keyOf(rule, key), points);
        return { allowed: true, remaining: res.remainingPoints };
      } catch (err) {
        if (err instanceof RateLimiterRes)
          return { allowed: false, retryAfterS: Math.max(1, Math.ceil(err.msBeforeNext / 1000)) };
        throw err;
      }
    },
    async refund(rule, key, points = 1) {
      await store(rule).reward(keyOf(rule, key), points);
    },
    async peek(rule, key) {
      const res = await store(rule).get(keyOf(rule, key));
      return res
        ? { count: res.consumedPoints, retryAfterS: Math.max(0, res.msBeforeNext / 1000) }
        : { count: 0, retryAfterS: 0 };
    },
    async reset(rule, key) {
      await store(rule).delete(keyOf(rule, key));
    },
  };
}

/** One limiter object per rule, made on first use. */
function perRule(make: (rule: LimitRule) => RateLimiterAbstract): Store {
  const made = new Map<string, RateLimiterAbstract>();
  return (rule) => {
    const id = `${rule.name}/${rule.max}/${rule.windowMs}`;
    let l = made.get(id);
    if (!l) made.set(id, (l = make(rule)));
    return l;
  };
}

const options = (rule: LimitRule, prefix = PREFIX) => ({
  keyPrefix: `${prefix}:${rule.name}`,
  points: rule.max,
  duration: Math.max(1, Math.ceil(rule.windowMs / 1000)),
});

export function createMemoryRateLimiter(): RateLimiter {
  return { ...fromStore(perRule((rule) => new RateLimiterMemory(options(rule)))), async close() {} };
}

/**
 * Budgets shared by every instance through the database (the rate_limits table, migration 0022):
 * rate-limiter-flexible's PostgreSQL store, one atomic upsert per try. Used on PostgreSQL without
 * Redis, and as Redis's fallback, so that N instances never allow N times the guesses. Its queries
 * go through our Database (one pool, the schema's search_path, a lost database is a 503).
 */
export function createDatabaseRateLimiter(db: Queryable, prefix = PREFIX): RateLimiter {
  const storeClient = {
    query: async (q: { text: string; values?: unknown[] }) => ({ rows: await db.query(q.text, q.values ?? []) }),
  };
  let sweeping = false;
  const store = perRule((rule) => {
    // One limiter sweeps rows expired an hour ago (every 5 minutes); the table is shared by all rules.
    const clearExpiredByTimeout = !sweeping;
    sweeping = true;
    return new RateLimiterPostgres({
      storeClient,
      storeType: 'pool',
      tableName: 'rate_limits',
      tableCreated: true,
      clearExpiredByTimeout,
      ...options(rule, prefix),
    });
  });
  return { ...fromStore(store), async close() {} };
}

/**
 * Shared budgets for several API instances. If Redis cannot be reached, the limiter counts in
 * `fallback` rather than failing the request: the database's shared budgets where there is a
 * PostgreSQL (composition.ts), else this instance's memory (rate-limiter-flexible's insurance
 * limiter does the same, but says nothing; we want the operator to see it in the log).
 * `prefix` keeps test runs apart: fresh schemas reuse user ids, and some budgets are per user.
 */
export function createRedisRateLimiter(
  url: string,
  onFallback: (err: unknown) => void = () => {},
  prefix = PREFIX,
  fallback: RateLimiter = createMemoryRateLimiter(),
): RateLimiter {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 });
  redis.on('error', () => {
    /* surfaced by the next command, which falls back */
  });
  const shared = fromStore(perRule((rule) => new RateLimiterRedis({ storeClient: redis, ...options(rule, prefix) })));
  const guarded =
    <A extends unknown[], T>(fn: (...a: A) => Promise<T>, fallback: (...a: A) => Promise<T>) =>
    async (...a: A): Promise<T> => {
      try {
        return await fn(...a);
      } catch (err) {
        onFallback(err);
        return fallback(...a);
      }
    };
  return {
    consume: guarded(shared.consume, fallback.consume),
    refund: guarded(shared.refund, fallback.refund),
    peek: guarded(shared.peek, fallback.peek),
    reset: guarded(shared.reset, fallback.reset),
    async close() {
      redis.disconnect();
      await fallback.close();
    },
  };
}
