import { describe, expect, it } from 'vitest';
import { COUNTRY_CODES, billingAddressBody, normalizeVatNumber, vatNumberProblem } from './billing-address.js';

describe('VAT numbers by the address country (format only: no VIES check is possible here)', () => {
  it.each([
    ['DE', 'DE123456789'],
    ['DE', 'de 123.456.789'],
    ['AT', 'ATU12345678'],
    ['GR', 'EL123456789'],
    ['FR', 'FRXX123456789'],
    ['NL', 'NL123456789B01'],
    ['IE', 'IE1234567T'],
    ['IE', 'IE1234567WA'],
    ['ES', 'ESX1234567X'],
    ['SE', 'SE123456789001'],
    ['GB', 'XI123456789'],
    ['GB', 'GB123456789'],
    ['US', '12-3456789'],
    ['CH', 'CHE123456789'],
    ['DE', ''],
  ])('%s %s is accepted', (country, vat) => {
    expect(vatNumberProblem(country, vat)).toBeNull();
  });
  it.each([
    ['DE', 'DE12345678', 'shape'],
    ['DE', '123456789', 'starts with DE'],
    ['GR', 'GR123456789', 'starts with EL'],
    ['AT', 'AT12345678', 'shape'],
    ['NL', 'NL123456789X01', 'shape'],
    ['FR', 'FRIO123456789', 'shape'],
    ['US', 'DE123456789', 'another country'],
    ['GB', 'XI12345', 'Northern Ireland'],
    ['US', 'ab$cd', '2 to 20'],
    ['US', 'A'.repeat(21), '2 to 20'],
  ])('%s %s is refused (%s)', (country, vat, why) => {
    expect(vatNumberProblem(country, vat)).toContain(why);
  });
  it('normalises to upper case without separators', () => {
    expect(normalizeVatNumber(' nl 1234.56789-b01 ')).toBe('NL123456789B01');
  });
});

describe('billingAddressBody', () => {
  const ok = { name: 'Acme GmbH', line1: 'Hauptstraße 1', city: 'Berlin', postalCode: '10115', country: 'DE' };
  it('accepts an address and stores the VAT number normalised', () => {
    expect(billingAddressBody.parse({ ...ok, vatNumber: 'de 123 456 789' })).toMatchObject({
      vatNumber: 'DE123456789',
      line2: '',
    });
  });
  it('refuses an unknown country, a missing name, control characters and a VAT number of another country', () => {
    const issues = (v: Record<string, unknown>) =>
      billingAddressBody.safeParse(v).error?.issues.map((i) => i.path.join('.')) ?? [];
    expect(issues({ ...ok, country: 'XX' })).toEqual(['country']);
    expect(issues({ ...ok, country: 'EU' })).toEqual(['country']);
    expect(issues({ ...ok, name: '  ' })).toEqual(['name']);
    expect(issues({ ...ok, line1: 'a\u0000b' })).toEqual(['line1']);
    expect(issues({ ...ok, vatNumber: 'FR12345678901' })).toEqual(['vatNumber']);
  });
  it('knows every ISO country once', () => {
    expect(new Set(COUNTRY_CODES).size).toBe(COUNTRY_CODES.length);
    expect(COUNTRY_CODES.length).toBe(249);
  });
});
