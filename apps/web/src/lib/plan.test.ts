import { describe, expect, it } from 'vitest';
import i18next from 'i18next';
import en from '../../public/assets/i18n/en.json';
import ru from '../../public/assets/i18n/ru.json';
import zh from '../../public/assets/i18n/zh.json';
import { isFreeUser, planDisplayName, planLine, showFloatingUpgrade } from './plan';

const free = { subscriptionData: { tariffName: 'Free', tariffKey: 'free-plan', expiresAt: null } };
const paid = { subscriptionData: { tariffName: '1 Year', tariffKey: '1-year', expiresAt: '2030-01-01T00:00:00Z' } };

describe('isFreeUser', () => {
  it('is the free-plan tariff key', () => {
    expect(isFreeUser(free)).toBe(true);
    expect(isFreeUser(paid)).toBe(false);
    expect(isFreeUser(null)).toBe(false);
  });
});

describe('planLine', () => {
  it.each([
    [free, 'desktop', 'upgrade'],
    [paid, 'desktop', 'badge'],
    [free, 'mobile', 'badge'],
    [paid, 'mobile', 'badge'],
  ] as const)('%o on %s → %s', (user, device, trailing) => {
    expect(planLine(user, device)).toEqual({ name: user.subscriptionData.tariffName, trailing });
  });
});

describe('showFloatingUpgrade', () => {
  it.each([
    [free, 'mobile', '/dashboard', true],
    [free, 'mobile', '/profile', true],
    [free, 'mobile', '/thank-you', false],
    [free, 'mobile', '/plans', false],
    [free, 'mobile', '/plans/', false],
    [free, 'mobile', '/plans/1-year', false],
    [free, 'mobile', '/plansx', true],
    [free, 'desktop', '/dashboard', false],
    [paid, 'mobile', '/dashboard', false],
    [null, 'mobile', '/dashboard', false],
  ] as const)('%o on %s at %s → %s', (user, deviceType, pathname, expected) => {
    expect(showFloatingUpgrade({ user, deviceType, pathname })).toBe(expected);
  });
});

describe('planDisplayName', () => {
  it('names every catalogue plan in each language, and falls back to the API name', async () => {
    const i18n = i18next.createInstance();
    await i18n.init({
      lng: 'ru',
      resources: { en: { translation: en }, ru: { translation: ru }, zh: { translation: zh } },
    });
    expect(planDisplayName(i18n.t, '1-month', '1 Month')).toBe('1 месяц');
    expect(planDisplayName(i18n.t, 'free-plan', 'Free')).toBe('Бесплатный');
    expect(planDisplayName(i18n.t, 'custom-2026', 'Spring deal')).toBe('Spring deal');
    await i18n.changeLanguage('zh');
    expect(planDisplayName(i18n.t, '2-years', '2 Years')).toBe('2 年');
    for (const key of ['free-plan', '1-month', '1-year', '2-years', 'lifetime', 'trial']) {
      for (const lang of ['en', 'ru', 'zh'])
        expect(i18n.getFixedT(lang)(`payment.planNames.${key}`), `${lang} ${key}`).not.toContain('payment.');
    }
  });
});
