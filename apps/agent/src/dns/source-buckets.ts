/**
 * A token bucket per source address (issue 23): one peer flooding the resolver spends its own
 * budget and is dropped, the others keep theirs. A bucket holds `burst` queries and refills at
 * `perSecond`; the only state is an address → (tokens, time) map, never a query's content.
 *
 * Memory is bounded: at most `maxSources` buckets. A bucket untouched long enough to be full again
 * carries no information and is forgotten first; when every one is still draining (a spoofed-source
 * flood), the oldest goes, so a flood of new addresses costs at most the map, not the peers'
 * budgets beyond the cap (an evicted peer starts again with a full bucket).
 */
export interface SourceBucketOptions {
  perSecond: number;
  burst: number;
  maxSources?: number;
  now?: () => number;
}

/**
 * The responder's budget per source: bursts of 500 (a page load asks a few dozen names; the tunnel
 * test's 400 back-to-back queries fit), then 100 a second. One source can then hold at most
 * 500 + 4 s × 100 = 900 of the 2,048 queries in flight against a silent upstream: never all.
 */
export const DNS_PER_SOURCE = { perSecond: 100, burst: 500 } as const;

export class SourceBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perMs: number;
  private readonly burst: number;
  private readonly maxSources: number;
  private readonly now: () => number;
  /** Time for an empty bucket to fill again: a bucket older than this is full. */
  private readonly fullAfterMs: number;

  constructor(o: SourceBucketOptions) {
    this.perMs = o.perSecond / 1000;
    this.burst = o.burst;
    this.maxSources = o.maxSources ?? 10_000;
    this.now = o.now ?? (() => performance.now());
    this.fullAfterMs = this.burst / this.perMs;
  }

  get size(): number {
    return this.buckets.size;
  }

  /** Spends one query of `source`'s budget; false: over it (drop the query). */
  take(source: string): boolean {
    const now = this.now();
    const b = this.buckets.get(source);
    if (!b) {
      if (this.buckets.size >= this.maxSources) this.evict(now);
      this.buckets.set(source, { tokens: this.burst - 1, at: now });
      return true;
    }
    b.tokens = Math.min(this.burst, b.tokens + (now - b.at) * this.perMs);
    b.at = now;
    // Most recently used last: the map's order is the eviction order.
    this.buckets.delete(source);
    this.buckets.set(source, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  /** Forgets full buckets (idle sources); if none, the least recently used one. */
  private evict(now: number): void {
    for (const [k, b] of this.buckets) {
      if (now - b.at < this.fullAfterMs) break; // in last-use order: the rest are younger
      this.buckets.delete(k);
    }
    if (this.buckets.size >= this.maxSources) {
      const oldest = this.buckets.keys().next();
      if (!oldest.done) this.buckets.delete(oldest.value);
    }
  }
}
