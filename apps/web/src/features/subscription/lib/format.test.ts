import { describe, expect, it } from 'vitest';
import { formatMoney, providerName } from './format';

describe('subscription formats', () => {
  it('prints money in the page language, minor units to major', () => {
    expect(formatMoney(1299, 'USD', 'en')).toBe('$12.99');
    expect(formatMoney(99900, 'RUB', 'ru').replace(/\s/g, ' ')).toBe('999,00 ₽');
    expect(formatMoney(4674, 'EUR', 'en')).toBe('€46.74');
  });

  it('falls back to the plain amount for a currency code Intl does not take', () => {
    expect(formatMoney(500, 'X1', 'en')).toBe('5.00 X1');
  });

  it('names providers as customers know them', () => {
    expect(providerName('payssionv2')).toBe('Payssion');
    expect(providerName('other')).toBe('other');
  });
});
