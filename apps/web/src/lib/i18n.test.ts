import { describe, expect, it } from 'vitest';
import { detectLanguage } from './i18n';
import en from '../../public/assets/i18n/en.json';
import ru from '../../public/assets/i18n/ru.json';
import zh from '../../public/assets/i18n/zh.json';

describe('detectLanguage', () => {
  it.each([
    ['ru', 'en-US', 'ru'],
    ['zh', 'ru-RU', 'zh'],
    [null, 'ru-RU', 'ru'],
    [null, 'zh-CN', 'zh'],
    [null, 'ZH-tw', 'zh'],
    [null, 'de-DE', 'en'],
    [null, undefined, 'en'],
    ['fr', 'ru', 'ru'],
    ['', '', 'en'],
  ] as const)('stored %s, browser %s → %s', (stored, nav, expected) => {
    expect(detectLanguage(stored, nav)).toBe(expected);
  });
});

function keys(obj: unknown, prefix = ''): string[] {
  return Object.entries(obj as Record<string, unknown>).flatMap(([k, v]) =>
    v && typeof v === 'object' ? keys(v, `${prefix}${k}.`) : [`${prefix}${k}`],
  );
}

describe('translations', () => {
  it('ru and zh have every key en has, and no empty strings', () => {
    const enKeys = keys(en).sort();
    expect(keys(ru).sort()).toEqual(enKeys);
    expect(keys(zh).sort()).toEqual(enKeys);
  });
});
