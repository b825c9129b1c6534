import { describe, expect, it } from 'vitest';
import en from '../../../../public/assets/i18n/en.json';
import { setupLinks } from './links';

function text(key: string): unknown {
  return key
    .split('.')
    .reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), en);
}

describe('dashboard quick links', () => {
  it('link WireGuard for members who have it, and the plans for everyone else', () => {
    const withWg = setupLinks({ isWgSectionAvailable: true }).map((l) => l.to);
    const without = setupLinks({ isWgSectionAvailable: false }).map((l) => l.to);
    expect(withWg).toContain('/setup/wg');
    expect(withWg).not.toContain('/plans');
    expect(without).toContain('/plans');
    expect(without).not.toContain('/setup/wg');
  });

  it('every title and text is a translated string', () => {
    for (const l of [...setupLinks({ isWgSectionAvailable: true }), ...setupLinks({ isWgSectionAvailable: false })]) {
      expect(typeof text(l.title), l.title).toBe('string');
      expect(typeof text(l.text), l.text).toBe('string');
    }
  });
});
