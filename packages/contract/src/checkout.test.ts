import { describe, expect, it } from 'vitest';
import { planMonths } from './checkout.js';

describe('per-month price rule', () => {
  it('counts a year as 12 months and 30-day periods as months; none for lifetime and short trials', () => {
    expect(planMonths(365)).toBe(12);
    expect(planMonths(730)).toBe(24);
    expect(planMonths(30)).toBe(1);
    expect(planMonths(90)).toBe(3);
    expect(planMonths(180)).toBe(6);
    expect(planMonths(7)).toBeNull();
    expect(planMonths(null, true)).toBeNull();
    expect(planMonths(null)).toBeNull();
  });
  it('$59.99 a year is $5.00 a month (price / months), not $4.93 (30/365 of it)', () => {
    expect(Math.round(5999 / planMonths(365)!)).toBe(500);
    expect(Math.round((5999 * 30) / 365)).toBe(493); // the old rule, for the record
    expect(Math.round(8999 / planMonths(730)!)).toBe(375);
  });
});
