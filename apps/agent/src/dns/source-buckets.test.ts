import { describe, expect, it } from 'vitest';
import { SourceBuckets } from './source-buckets.js';

describe('a token bucket per source', () => {
  it('lets a burst through, then the refill rate; one source never spends another’s budget', () => {
    let t = 0;
    const b = new SourceBuckets({ perSecond: 10, burst: 5, now: () => t });
    const flood = Array.from({ length: 50 }, () => b.take('10.8.0.2'));
    expect(flood.filter(Boolean)).toHaveLength(5);
    // The other peer still has its whole burst.
    expect(Array.from({ length: 5 }, () => b.take('10.8.0.3')).every(Boolean)).toBe(true);
    expect(b.take('10.8.0.3')).toBe(false);
    // 100 ms later: one more query each (10 a second).
    t += 100;
    expect(b.take('10.8.0.2')).toBe(true);
    expect(b.take('10.8.0.2')).toBe(false);
    // Idle a long time: full again, never more than the burst.
    t += 60_000;
    expect(Array.from({ length: 10 }, () => b.take('10.8.0.2')).filter(Boolean)).toHaveLength(5);
  });

  it('keeps at most maxSources buckets: idle ones go first, then the least recently used', () => {
    let t = 0;
    const b = new SourceBuckets({ perSecond: 10, burst: 5, maxSources: 100, now: () => t });
    for (let i = 0; i < 100_000; i++) b.take(`fd00::${i.toString(16)}`);
    expect(b.size).toBeLessThanOrEqual(100);
    // A peer draining its bucket stays while idle ones are forgotten.
    const c = new SourceBuckets({ perSecond: 10, burst: 5, maxSources: 3, now: () => t });
    for (let i = 0; i < 5; i++) c.take('busy');
    c.take('idle-1');
    c.take('idle-2');
    t += 10_000; // the idle ones are full again; 'busy' used just now:
    c.take('busy');
    c.take('new');
    expect(c.size).toBeLessThanOrEqual(3);
    expect(c.take('busy')).toBe(true); // 10 s refilled it; it was kept, not replaced by a fresh one
  });
});
