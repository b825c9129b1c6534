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

/** Plural forms differ per language (ru: one/few/many, zh: other only): compare the base keys. */
function baseKeys(obj: unknown): string[] {
  return [...new Set(keys(obj).map((k) => k.replace(/_(zero|one|two|few|many|other)$/, '')))].sort();
}

describe('translations', () => {
  it('ru and zh have every key en has, and no empty strings', () => {
    const enKeys = baseKeys(en);
    expect(baseKeys(ru)).toEqual(enKeys);
    expect(baseKeys(zh)).toEqual(enKeys);
    const values = (obj: unknown): unknown[] =>
      Object.values(obj as Record<string, unknown>).flatMap((v) => (v && typeof v === 'object' ? values(v) : [v]));
    for (const lang of [en, ru, zh]) {
      for (const v of values(lang)) expect(typeof v === 'string' && v.trim().length > 0).toBe(true);
    }
  });

  it('keeps the catalogue messages word for word (spec section 8)', () => {
    expect(en.auth.verify.signInOk).toBe("You've been succesfully verified, please login.");
    expect(en.plans.verifyOk).toBe("You've successfully verified your account.");
    expect(en.auth.verify.signInFailed).toBe('Verification was unsuccessful. Use the "Resend Email" button.');
    expect(en.plans.verifyFailed).toBe(
      'Verification was unsuccessful. Please log in and use the "Resend Email" button.',
    );
    expect(en.auth.reset.done).toBe('Password updated successfully');
    expect(en.guard.paymentProcessing).toBe('Your payment is still being processed. Please, wait for a while.');
    expect(en.guard.notVerified).toBe(
      "You haven't verified your email yet. Open your inbox and confirm an email address to use a free VPN and access all sections.",
    );
  });
});
