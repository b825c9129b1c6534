import { describe, expect, it } from 'vitest';
import { keyExpiryLabel, lifetimeChoices } from './key-expiry';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const t = (key: string, o?: Record<string, unknown>) => (o ? `${key}:${String(o.count)}` : key);
const inHours = (h: number) => new Date(NOW + h * 3_600_000).toISOString();

describe('keyExpiryLabel', () => {
  it('says nothing for a key that never expires', () => {
    expect(keyExpiryLabel({ keyExpiresAt: null }, NOW, t)).toBeNull();
    expect(keyExpiryLabel({}, NOW, t)).toBeNull();
  });
  it('counts days (rounded up), then hours in the last day, then expired', () => {
    expect(keyExpiryLabel({ keyExpiresAt: inHours(72) }, NOW, t)).toEqual({
      text: 'setup.wgKey.expiresInDays:3',
      tone: 'ok',
    });
    expect(keyExpiryLabel({ keyExpiresAt: inHours(49) }, NOW, t)!.text).toBe('setup.wgKey.expiresInDays:3');
    expect(keyExpiryLabel({ keyExpiresAt: inHours(24) }, NOW, t)).toEqual({
      text: 'setup.wgKey.expiresInDays:1',
      tone: 'soon',
    });
    expect(keyExpiryLabel({ keyExpiresAt: inHours(5.5) }, NOW, t)).toEqual({
      text: 'setup.wgKey.expiresInHours:6',
      tone: 'soon',
    });
    expect(keyExpiryLabel({ keyExpiresAt: inHours(0) }, NOW, t)).toEqual({
      text: 'setup.wgKey.expired',
      tone: 'expired',
    });
    expect(keyExpiryLabel({ keyExpiresAt: inHours(-30) }, NOW, t)!.tone).toBe('expired');
  });
});

describe('lifetimeChoices', () => {
  it('never first, then the offered days; a device’s own other lifetime is kept in order', () => {
    expect(lifetimeChoices(null)).toEqual([null, 1, 3, 7, 14, 30]);
    expect(lifetimeChoices(7)).toEqual([null, 1, 3, 7, 14, 30]);
    expect(lifetimeChoices(10)).toEqual([null, 1, 3, 7, 10, 14, 30]);
  });
});
