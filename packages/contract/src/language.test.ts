import { describe, expect, it } from 'vitest';
import { isLanguage, languageFromTag, languageOr } from './language.js';

it('speaks a browser language by its first two letters, else English', () => {
  expect(languageFromTag('ru-RU')).toBe('ru');
  expect(languageFromTag('ZH-cn')).toBe('zh');
  expect(languageFromTag(' en')).toBe('en');
  expect(languageFromTag('de-DE')).toBe('en');
  expect(languageFromTag('r')).toBe('en');
  expect(languageFromTag('')).toBe('en');
  expect(languageFromTag(undefined)).toBe('en');
  expect(languageFromTag(null)).toBe('en');
});

describe('isLanguage and languageOr (values the app itself stores or sends)', () => {
  it('take exactly en, ru and zh; anything else falls back', () => {
    expect(['en', 'ru', 'zh'].every(isLanguage)).toBe(true);
    for (const v of ['ru-RU', 'RU', '', null, undefined, 7, '__proto__', 'constructor'])
      expect(isLanguage(v)).toBe(false);
    expect(languageOr('zh')).toBe('zh');
    expect(languageOr('de')).toBe('en');
    expect(languageOr(undefined, 'ru')).toBe('ru');
  });
});
