import { afterEach, describe, expect, it } from 'vitest';
import { injectBrandScripts } from './brand-scripts';

afterEach(() => document.head.querySelectorAll('script[data-brand-script]').forEach((el) => el.remove()));

describe('injectBrandScripts', () => {
  it('adds one async script per configured snippet, once', () => {
    const scripts = [
      { kind: 'analytics' as const, src: 'https://stats.example.com/a.js' },
      { kind: 'tag-manager' as const, src: 'https://tags.example.com/gtm.js?id=1' },
    ];
    expect(injectBrandScripts(scripts)).toHaveLength(2);
    expect(injectBrandScripts(scripts)).toHaveLength(0);
    const els = [...document.head.querySelectorAll<HTMLScriptElement>('script[data-brand-script]')];
    expect(els.map((e) => e.src)).toEqual(['https://stats.example.com/a.js', 'https://tags.example.com/gtm.js?id=1']);
    expect(els.every((e) => e.async)).toBe(true);
    expect(els[1]!.dataset.kind).toBe('tag-manager');
  });

  it('adds nothing by default and skips non-http sources', () => {
    expect(injectBrandScripts([])).toEqual([]);
    expect(injectBrandScripts([{ kind: 'analytics', src: 'javascript:alert(1)' }])).toEqual([]);
  });
});
