import i18next from 'i18next';
import { describe, expect, it } from 'vitest';
import { STAFF_NS, STAFF_TRANSLATIONS, addStaffTranslations } from './i18n';
import { can } from './permissions';
import { safeNext } from '../routes/StaffSignInPage';
import { isSecondFactorCode } from './format';

function keys(obj: unknown, prefix = ''): string[] {
  return Object.entries(obj as Record<string, unknown>).flatMap(([k, v]) =>
    v && typeof v === 'object' ? keys(v, `${prefix}${k}.`) : [`${prefix}${k}`],
  );
}
const base = (obj: unknown) =>
  [...new Set(keys(obj).map((k) => k.replace(/_(zero|one|two|few|many|other)$/, '')))].sort();

describe('console translations', () => {
  it('ru and zh have every key en has, none empty', () => {
    const { en, ru, zh } = STAFF_TRANSLATIONS;
    expect(base(ru)).toEqual(base(en));
    expect(base(zh)).toEqual(base(en));
    const values = (o: unknown): unknown[] =>
      Object.values(o as Record<string, unknown>).flatMap((v) => (v && typeof v === 'object' ? values(v) : [v]));
    for (const lang of [en, ru, zh])
      for (const v of values(lang)) expect(typeof v === 'string' && v.trim().length > 0).toBe(true);
  });

  it('come in their own namespace, without touching the customer app’s', async () => {
    const instance = i18next.createInstance();
    await instance.init({ lng: 'ru', fallbackLng: 'en', resources: { en: { translation: { hello: 'Hello' } } } });
    addStaffTranslations(instance);
    expect(instance.t('signIn.title', { ns: STAFF_NS })).toBe('Вход для сотрудников');
    expect(instance.t('staff:titles.nodes')).toBe('Локации и узлы · Консоль');
    expect(instance.t('hello')).toBe('Hello');
    expect(instance.t('dialogs.grantConfirm', { ns: STAFF_NS, count: 5 })).toBe('Добавить 5 дней');
  });
});

describe('roles', () => {
  it('support reads, grants, resends, turns off auto-renew and signs out; the rest is admin', () => {
    for (const a of ['grant-days', 'resend-verification', 'auto-renew-off', 'sign-out-all'] as const)
      expect(can('support', a)).toBe(true);
    for (const a of [
      'refund',
      'reset-service-credentials',
      'disable',
      'enable',
      'delete',
      'manageNodes',
      'retryJobs',
    ] as const) {
      expect(can('support', a)).toBe(false);
      expect(can('admin', a)).toBe(true);
    }
  });
});

describe('the way back after signing in', () => {
  it.each([
    [null, '/staff/customers'],
    ['/staff/customers/12?x=1', '/staff/customers/12?x=1'],
    ['/staff/sign-in', '/staff/customers'],
    ['//evil.example/staff/', '/staff/customers'],
    ['https://evil.example/staff/x', '/staff/customers'],
    ['/dashboard', '/staff/customers'],
    ['/staff/\\evil', '/staff/customers'],
  ])('%s → %s', (next, to) => expect(safeNext(next)).toBe(to));
});

describe('the second-factor code the sign-in sends', () => {
  it.each([
    ['123456', true],
    ['12345', false],
    ['1234567', false],
    ['abcd-efgh-ijkl', true],
    ['ABCD-EFGH-IJKL', true],
    ['abcdefgh', true],
    ['abc-def', false],
    ['', false],
    ['abcd efgh', false],
  ])('%s → %s', (code, ok) => expect(isSecondFactorCode(code)).toBe(ok));
});
