import { expect, it } from 'vitest';
import { languageFromTag } from './language.js';

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
