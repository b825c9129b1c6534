import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PLAN_NAMES, planName } from './plan-names.js';
import { renderMail } from './templates.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const webLocale = (lang: string) =>
  JSON.parse(fs.readFileSync(path.join(here, '../../../web/public/assets/i18n', `${lang}.json`), 'utf8')) as {
    payment: { planNames: Record<string, string> };
  };
const catalogue = JSON.parse(fs.readFileSync(path.join(here, '../../../../config/catalogue.json'), 'utf8')) as {
  tariffs: { key: string; name: string }[];
};

describe('plan names in mails', () => {
  it('names a plan in the mail language by its key, with the catalogue name for an unknown key', () => {
    expect(planName('1-month', '1 Month', 'zh')).toBe('1 个月');
    expect(planName('1-year', '1 Year', 'ru')).toBe('1 год');
    expect(planName('lifetime', 'Lifetime', 'en')).toBe('Lifetime');
    expect(planName('brand-special', 'Brand Special', 'zh')).toBe('Brand Special');
    expect(planName('', 'Brand Special', 'ru')).toBe('Brand Special');
    expect(planName(undefined, '1 Month', 'zh')).toBe('1 Month');
    // Not a lookup into the object's prototype.
    expect(planName('constructor', 'X', 'en')).toBe('X');
    expect(planName('__proto__', 'X', 'zh')).toBe('X');
  });

  it('uses the web app wording, for every plan of the catalogue', () => {
    for (const lang of ['en', 'ru', 'zh'] as const) {
      expect(PLAN_NAMES[lang]).toEqual(webLocale(lang).payment.planNames);
      for (const t of catalogue.tariffs) expect(PLAN_NAMES[lang][t.key], `${lang} ${t.key}`).toBeTruthy();
    }
  });

  it('a Chinese receipt and reminder say the plan in Chinese; a Russian plan-ended mail in Russian', () => {
    const receipt = renderMail('receipt', {
      language: 'zh',
      productName: 'Warren',
      vars: { plan: '1 Month', planKey: '1-month', amount: '$12.99', payment: 'p1', until: '2027-01-01' },
    });
    expect(receipt.text).toContain('套餐：1 个月。');
    expect(receipt.text + receipt.html).not.toContain('1 Month');
    const reminder = renderMail('renewalReminder', {
      language: 'zh',
      productName: 'Warren',
      vars: {
        plan: '1 Year',
        planKey: '1-year',
        amount: '$59.99',
        method: 'Visa 4242',
        date: '2027-01-01',
        until: '2027-01-04',
      },
    });
    expect(reminder.text).toContain('您的 1 年 套餐');
    const ended = renderMail('planEnded', {
      language: 'ru',
      productName: 'Warren',
      vars: { plan: '2 Years', planKey: '2-years', until: '2027-01-01' },
    });
    expect(ended.text).toContain('Тариф 2 года закончился');
  });

  it('keeps the name it was given without a key (mails queued before keys were passed) or for an unknown key', () => {
    expect(
      renderMail('receipt', {
        language: 'zh',
        productName: 'W',
        vars: { plan: '1 Month', amount: '1', payment: 'p', until: 'u' },
      }).text,
    ).toContain('套餐：1 Month。');
    expect(
      renderMail('receipt', {
        language: 'ru',
        productName: 'W',
        vars: { plan: 'Brand <b>', planKey: 'brand', amount: '1', payment: 'p', until: 'u' },
      }).html,
    ).toContain('Brand &lt;b&gt;');
  });
});
