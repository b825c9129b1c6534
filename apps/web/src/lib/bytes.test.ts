import { describe, expect, it } from 'vitest';
import { formatBytes } from './bytes';

describe('formatBytes', () => {
  it('formats sizes', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(48234496)).toBe('46 MB');
    expect(formatBytes(1536)).toBe('1.5 KB');
  });
});
