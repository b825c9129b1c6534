import { describe, expect, it } from 'vitest';
import { rotateWgKeyBody, setWgKeyLifetimeBody, wgKeyExpired, wgKeyLeft } from './wireguard-keys.js';

const NOW = new Date('2026-11-28T12:00:00Z');
const at = (h: number) => new Date(NOW.getTime() + h * 3_600_000);
const KEY = 'kE7n3xZ1qvI1bH5mWq3k0m1s5q5e6dQn8mJ2wLr4T0A=';
const KEY2 = 'mE7n3xZ1qvI1bH5mWq3k0m1s5q5e6dQn8mJ2wLr4T0A=';

describe('wgKeyExpired', () => {
  it('never without an expiry; expired at and after it', () => {
    expect(wgKeyExpired(null, NOW)).toBe(false);
    expect(wgKeyExpired(undefined, NOW)).toBe(false);
    expect(wgKeyExpired(at(1), NOW)).toBe(false);
    expect(wgKeyExpired(NOW.toISOString(), NOW)).toBe(true);
    expect(wgKeyExpired(at(-1).getTime(), NOW.getTime())).toBe(true);
  });
});

describe('wgKeyLeft', () => {
  it.each([
    [null, { state: 'never' }],
    [at(0), { state: 'expired' }],
    [at(-5), { state: 'expired' }],
    [at(0.01), { state: 'hours', count: 1 }],
    [at(23.5), { state: 'hours', count: 24 }],
    [at(24), { state: 'days', count: 1 }],
    [at(25), { state: 'days', count: 2 }],
    [at(72), { state: 'days', count: 3 }],
    [at(30 * 24), { state: 'days', count: 30 }],
  ] as const)('%s → %o', (expires, expected) => {
    expect(wgKeyLeft(expires, NOW)).toEqual(expected);
  });
});

describe('bodies', () => {
  it('takes 1-30 whole days or null for never', () => {
    for (const days of [1, 7, 30, null]) expect(setWgKeyLifetimeBody.safeParse({ id: 1, days }).success).toBe(true);
    for (const days of [0, 31, 1.5, -1, '7', undefined]) {
      const r = setWgKeyLifetimeBody.safeParse({ id: 1, days });
      expect(r.success, String(days)).toBe(false);
      expect(r.error!.issues[0]!.path).toEqual(['days']);
    }
  });
  it('a rotation needs two different WireGuard keys', () => {
    expect(rotateWgKeyBody.safeParse({ id: 1, previousKey: KEY, publicKey: KEY2 }).success).toBe(true);
    const same = rotateWgKeyBody.safeParse({ id: 1, previousKey: KEY, publicKey: KEY });
    expect(same.error!.issues.map((i) => i.path)).toEqual([['publicKey']]);
    expect(rotateWgKeyBody.safeParse({ id: 1, previousKey: KEY, publicKey: 'abc' }).success).toBe(false);
  });
});
