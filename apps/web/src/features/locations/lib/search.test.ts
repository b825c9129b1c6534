import { describe, expect, it } from 'vitest';
import { flagOf, matchesQuery } from './search';

describe('location search helpers', () => {
  it('makes flags from country codes', () => {
    expect(flagOf('de')).toBe('🇩🇪');
    expect(flagOf('US')).toBe('🇺🇸');
    expect(flagOf('1')).toBe('🏳️');
  });
  it('searches without case or accents', () => {
    expect(matchesQuery('sao', 'Brazil', 'São Paulo')).toBe(true);
    expect(matchesQuery('FRANK', 'Germany', 'Frankfurt')).toBe(true);
    expect(matchesQuery('tokyo', 'Germany', 'Frankfurt')).toBe(false);
    expect(matchesQuery('  ', 'x')).toBe(true);
  });
});
