import { describe, expect, it } from 'vitest';
import { flagOf, formatBytes, matchesQuery } from './format';
import { generateWgKeyPair, publicKeyOf } from './wg-keys';

describe('setup helpers', () => {
  it('makes flags from country codes', () => {
    expect(flagOf('de')).toBe('🇩🇪');
    expect(flagOf('US')).toBe('🇺🇸');
    expect(flagOf('1')).toBe('🏳️');
  });
  it('formats sizes', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(48234496)).toBe('46 MB');
    expect(formatBytes(1536)).toBe('1.5 KB');
  });
  it('searches without case or accents', () => {
    expect(matchesQuery('sao', 'Brazil', 'São Paulo')).toBe(true);
    expect(matchesQuery('FRANK', 'Germany', 'Frankfurt')).toBe(true);
    expect(matchesQuery('tokyo', 'Germany', 'Frankfurt')).toBe(false);
    expect(matchesQuery('  ', 'x')).toBe(true);
  });
  it('generates a WireGuard key pair whose public key matches its private key', async () => {
    const pair = await generateWgKeyPair();
    expect(pair.publicKey).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(pair.privateKey).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(await publicKeyOf(pair.privateKey)).toBe(pair.publicKey);
  });
});
