import { describe, expect, it } from 'vitest';
import {
  DAY_MS,
  type LivePeriod,
  type SwitchTariff,
  mulDivFloor,
  quoteSwitch,
  switchRefundTakesBack,
  unusedCredit,
} from './plan-switch.js';

const T = (id: number, key: string, periodDays: number | null, extra: Partial<SwitchTariff> = {}): SwitchTariff => ({
  id,
  key,
  periodDays,
  isFree: false,
  isLifetime: false,
  isTrial: false,
  ...extra,
});
const FREE = T(1, 'free-plan', null, { isFree: true });
const MONTH = T(2, '1-month', 30);
const YEAR = T(3, '1-year', 365);
const TWO_YEARS = T(4, '2-years', 730);
const LIFETIME = T(5, 'lifetime', null, { isLifetime: true });
const TRIAL = T(6, 'trial', 7, { isTrial: true });

const NOW = new Date('2026-11-28T12:00:00.000Z');
const at = (days: number) => new Date(NOW.getTime() + days * DAY_MS);
/** A period of `length` days that started `ago` days before now. */
const period = (valueMinor: number, currency: string, ago: number, length: number): LivePeriod => ({
  valueMinor,
  currency,
  start: at(-ago),
  end: at(length - ago),
});

describe('quoteSwitch: to a longer period, charged now with the unused part credited', () => {
  const cases: {
    name: string;
    current?: SwitchTariff;
    target?: SwitchTariff;
    price: number;
    currency: string;
    expires: Date;
    periods: LivePeriod[];
    credit: number;
    charge: number;
    carriedDays?: number;
  }[] = [
    // 1299 × 15/30 = 649.5 → 649 (down).
    {
      name: 'USD, half a month left',
      price: 5999,
      currency: 'USD',
      expires: at(15),
      periods: [period(1299, 'USD', 15, 30)],
      credit: 649,
      charge: 5350,
    },
    // 1199 × 29/30 = 1159.03 → 1159.
    {
      name: 'EUR, the day after buying',
      price: 5499,
      currency: 'EUR',
      expires: at(29),
      periods: [period(1199, 'EUR', 1, 30)],
      credit: 1159,
      charge: 4340,
    },
    // RUB minor units (kopecks): 99900 × 10/30 = 33300 exactly.
    {
      name: 'RUB, 10 days left',
      price: 449900,
      currency: 'RUB',
      expires: at(10),
      periods: [period(99900, 'RUB', 20, 30)],
      credit: 33300,
      charge: 416600,
    },
    // CNY: 8900 × 1/30 = 296.67 → 296.
    {
      name: 'CNY, one day left',
      price: 39900,
      currency: 'CNY',
      expires: at(1),
      periods: [period(8900, 'CNY', 29, 30)],
      credit: 296,
      charge: 39604,
    },
    // A discount tariff: the credit is what was paid (974 on discount-25), the new price the regular one.
    {
      name: 'bought on a discount list',
      price: 5999,
      currency: 'USD',
      expires: at(20),
      periods: [period(974, 'USD', 10, 30)],
      credit: 649,
      charge: 5350,
    },
    // Two months bought back to back: the second is wholly unused and credited in full.
    {
      name: 'two stacked months',
      price: 5999,
      currency: 'USD',
      expires: at(45),
      periods: [period(1299, 'USD', 15, 30), { valueMinor: 1299, currency: 'USD', start: at(15), end: at(45) }],
      credit: 649 + 1299,
      charge: 5999 - 1948,
    },
    // A support grant (nothing paid): no credit; its 12 days carry over as time after the new year.
    {
      name: 'a granted month',
      price: 5999,
      currency: 'USD',
      expires: at(12),
      periods: [period(0, 'USD', 18, 30)],
      credit: 0,
      charge: 5999,
      carriedDays: 12,
    },
    // Paid in EUR, switching in USD: that time carries over, nothing is converted.
    {
      name: 'another currency carries as time',
      price: 5999,
      currency: 'USD',
      expires: at(10),
      periods: [period(1199, 'EUR', 20, 30)],
      credit: 0,
      charge: 5999,
      carriedDays: 10,
    },
    // Bought through a provider that cannot renew (Cardlink): the credit is the same, only money counts.
    {
      name: 'a non-recurring provider (the same money rule)',
      price: 5999,
      currency: 'USD',
      expires: at(6),
      periods: [period(1299, 'USD', 24, 30)],
      credit: 259,
      charge: 5740,
    },
    // A year (switched to before: worth its full price 5999) to two years, with 100 days left: 5999 × 100/365 = 1643.56 → 1643.
    {
      name: 'a year to two years',
      current: YEAR,
      target: TWO_YEARS,
      price: 8999,
      currency: 'USD',
      expires: at(100),
      periods: [period(5999, 'USD', 265, 365)],
      credit: 1643,
      charge: 7356,
    },
    // A refund moved the paid-until back: a period beyond it is never credited; what is left is credited only up to the paid-until.
    {
      name: 'a period beyond the paid-until (after a refund)',
      price: 5999,
      currency: 'USD',
      expires: at(5),
      periods: [{ valueMinor: 1299, currency: 'USD', start: at(5), end: at(35) }],
      credit: 0,
      charge: 5999,
      carriedDays: 5,
    },
    // A few seconds left: a fraction of a cent is no credit.
    {
      name: 'seconds left',
      price: 5999,
      currency: 'USD',
      expires: new Date(NOW.getTime() + 1000),
      periods: [
        {
          valueMinor: 1299,
          currency: 'USD',
          start: new Date(NOW.getTime() + 1000 - 30 * DAY_MS),
          end: new Date(NOW.getTime() + 1000),
        },
      ],
      credit: 0,
      charge: 5999,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const q = quoteSwitch({
        now: NOW,
        current: c.current ?? MONTH,
        target: c.target ?? YEAR,
        expiresAt: c.expires,
        targetPriceMinor: c.price,
        currency: c.currency,
        periods: c.periods,
        renews: true,
      });
      expect(q.kind).toBe('now');
      if (q.kind !== 'now') return;
      expect(q.creditMinor).toBe(c.credit);
      expect(q.chargeMinor).toBe(c.charge);
      expect(q.priceMinor - q.creditMinor).toBe(q.chargeMinor);
      expect(Number.isInteger(q.chargeMinor)).toBe(true);
      expect(q.currency).toBe(c.currency);
      expect(q.periodStart).toEqual(NOW);
      const days = (c.target ?? YEAR).periodDays!;
      expect(q.carriedMs).toBe((c.carriedDays ?? 0) * DAY_MS);
      expect(q.periodEnd).toEqual(new Date(NOW.getTime() + days * DAY_MS + q.carriedMs));
    });
  }
});

describe('quoteSwitch: to a shorter period, at the next renewal', () => {
  it('is scheduled for the paid-until, nothing charged now, the renewal at the shorter price', () => {
    const q = quoteSwitch({
      now: NOW,
      current: YEAR,
      target: MONTH,
      expiresAt: at(200),
      targetPriceMinor: 1299,
      currency: 'USD',
      periods: [period(5999, 'USD', 165, 365)],
      renews: true,
    });
    expect(q).toEqual({ kind: 'scheduled', currency: 'USD', effectiveAt: at(200), nextChargeMinor: 1299 });
  });
  it('needs a renewal: a plan that does not renew has nothing to change', () => {
    const q = quoteSwitch({
      now: NOW,
      current: YEAR,
      target: MONTH,
      expiresAt: at(200),
      targetPriceMinor: 1299,
      currency: 'USD',
      periods: [],
      renews: false,
    });
    expect(q).toEqual({ kind: 'refused', reason: 'no-renewal' });
  });
});

describe('quoteSwitch: refusals', () => {
  const base = {
    now: NOW,
    current: MONTH,
    target: YEAR,
    expiresAt: at(10) as Date | null,
    targetPriceMinor: 5999,
    currency: 'USD',
    periods: [period(1299, 'USD', 20, 30)],
    renews: true,
  };
  it.each([
    ['the free plan', { current: FREE, expiresAt: null }, 'not-active'],
    ['an expired plan', { expiresAt: at(-1) }, 'not-active'],
    ['a plan ending this instant', { expiresAt: NOW }, 'not-active'],
    ['lifetime', { current: LIFETIME, expiresAt: null }, 'lifetime'],
    ['the same plan', { target: MONTH }, 'same-plan'],
    ['to lifetime (bought at checkout, not switched)', { target: LIFETIME }, 'not-switchable'],
    ['to a trial', { target: TRIAL }, 'not-switchable'],
    ['to free', { target: FREE }, 'not-switchable'],
    ['from a trial', { current: TRIAL }, 'current-not-switchable'],
    [
      'a credit that covers the price',
      { targetPriceMinor: 400, periods: [period(1299, 'USD', 20, 30)] },
      'credit-covers',
    ],
  ] as const)('%s', (_, over, reason) => {
    expect(quoteSwitch({ ...base, ...over })).toEqual({ kind: 'refused', reason });
  });
});

describe('money arithmetic', () => {
  it('floors exactly where floats would not', () => {
    expect(mulDivFloor(1299, 15 * DAY_MS, 30 * DAY_MS)).toBe(649);
    // 2^53 territory: a RUB price × a year in ms overflows a double's exact range.
    expect(mulDivFloor(1_499_900_00, 365 * DAY_MS - 1, 365 * DAY_MS)).toBe(149_989_999);
    expect(mulDivFloor(5, 1, 0)).toBe(0);
  });
  it('never credits more than the time left, whatever the periods say', () => {
    const r = unusedCredit([period(1299, 'USD', 0, 30), period(1299, 'USD', 0, 30)], NOW, at(30), 'USD');
    // Two overlapping records of one month: the month is credited once.
    expect(r.creditMinor).toBe(1299);
    expect(r.carriedMs).toBe(0);
  });
});

describe('edges: the first day, the last day, twice in a row, back and forth', () => {
  const quote = (o: Partial<Parameters<typeof quoteSwitch>[0]> & { periods: LivePeriod[]; expiresAt: Date }) =>
    quoteSwitch({
      now: NOW,
      current: MONTH,
      target: YEAR,
      targetPriceMinor: 5999,
      currency: 'USD',
      renews: true,
      ...o,
    });

  it('on the first day: the whole month is credited, to the cent', () => {
    const q = quote({ expiresAt: at(30), periods: [period(1299, 'USD', 0, 30)] });
    expect(q).toMatchObject({ kind: 'now', creditMinor: 1299, chargeMinor: 4700, carriedMs: 0 });
    // A minute in: 1299 × (30 d − 1 min) / 30 d = 1298.97 → 1298 (never a fraction not paid).
    const later = quoteSwitch({
      now: new Date(NOW.getTime() + 60_000),
      current: MONTH,
      target: YEAR,
      targetPriceMinor: 5999,
      currency: 'USD',
      renews: true,
      expiresAt: at(30),
      periods: [period(1299, 'USD', 0, 30)],
    });
    expect(later).toMatchObject({ kind: 'now', creditMinor: 1298, chargeMinor: 4701 });
  });

  it('on the last day: a day left is 1/30 of the month, its last second nothing', () => {
    // 1299 / 30 = 43.3 → 43.
    expect(quote({ expiresAt: at(1), periods: [period(1299, 'USD', 29, 30)] })).toMatchObject({
      kind: 'now',
      creditMinor: 43,
      chargeMinor: 5956,
    });
    const lastSecond = new Date(NOW.getTime() + 1000);
    expect(
      quote({
        expiresAt: lastSecond,
        periods: [
          { valueMinor: 1299, currency: 'USD', start: new Date(lastSecond.getTime() - 30 * DAY_MS), end: lastSecond },
        ],
      }),
    ).toMatchObject({ kind: 'now', creditMinor: 0, chargeMinor: 5999 });
  });

  it('twice in a row at the first instant costs what the longest plan costs bought at once', () => {
    const first = quote({ expiresAt: at(30), periods: [period(1299, 'USD', 0, 30)] });
    if (first.kind !== 'now') throw new Error(first.kind);
    // Applied: one year from now, worth the year's full price (paid 4700 + 1299 of credit).
    const second = quoteSwitch({
      now: NOW,
      current: YEAR,
      target: TWO_YEARS,
      targetPriceMinor: 8999,
      currency: 'USD',
      renews: true,
      expiresAt: first.periodEnd,
      periods: [{ valueMinor: first.priceMinor, currency: 'USD', start: first.periodStart, end: first.periodEnd }],
    });
    expect(second).toMatchObject({ kind: 'now', creditMinor: 5999, chargeMinor: 3000 });
    expect(1299 + first.chargeMinor + (second.kind === 'now' ? second.chargeMinor : 0)).toBe(8999);
    // Switching to what they have now is refused, not charged again.
    expect(
      quoteSwitch({
        now: NOW,
        current: YEAR,
        target: YEAR,
        targetPriceMinor: 5999,
        currency: 'USD',
        renews: true,
        expiresAt: first.periodEnd,
        periods: [],
      }),
    ).toEqual({ kind: 'refused', reason: 'same-plan' });
  });

  it('twice in a row with time between: each credit is the unused part at its own quote', () => {
    const first = quote({ expiresAt: at(15), periods: [period(1299, 'USD', 15, 30)] });
    expect(first).toMatchObject({ creditMinor: 649, chargeMinor: 5350 });
    // 100 days later, the year (worth 5999) has 265 days left: 5999 × 265/365 = 4355.4 → 4355.
    const later = new Date(NOW.getTime() + 100 * DAY_MS);
    const second = quoteSwitch({
      now: later,
      current: YEAR,
      target: TWO_YEARS,
      targetPriceMinor: 8999,
      currency: 'USD',
      renews: true,
      expiresAt: at(365),
      periods: [{ valueMinor: 5999, currency: 'USD', start: NOW, end: at(365) }],
    });
    expect(second).toMatchObject({ kind: 'now', creditMinor: 4355, chargeMinor: 4644 });
  });

  it('back and forth: a year back to a month waits for the renewal; nothing is paid back for it', () => {
    const back = quoteSwitch({
      now: at(10),
      current: YEAR,
      target: MONTH,
      targetPriceMinor: 1299,
      currency: 'USD',
      renews: true,
      expiresAt: at(365),
      periods: [{ valueMinor: 5999, currency: 'USD', start: NOW, end: at(365) }],
    });
    expect(back).toEqual({ kind: 'scheduled', currency: 'USD', effectiveAt: at(365), nextChargeMinor: 1299 });
  });
});

describe("switchRefundTakesBack: a switch's money-back undoes it", () => {
  it("takes back the new period less the time the credit paid for: the member keeps the old plan's days", () => {
    // A month with 15 days left switched to a year at NOW; refunded: 350 days go, the 15 stay.
    expect(switchRefundTakesBack({ start: NOW, end: at(365), basisExpires: at(15), carriedMs: 0 })).toBe(350 * DAY_MS);
    // On the first day: the whole month stays.
    expect(switchRefundTakesBack({ start: NOW, end: at(365), basisExpires: at(30), carriedMs: 0 })).toBe(335 * DAY_MS);
  });
  it('time carried over as time (a grant) is neither credited nor taken back', () => {
    // 12 granted days, no money: the whole year goes; the 12 days (after it) stay.
    expect(switchRefundTakesBack({ start: NOW, end: at(365), basisExpires: at(12), carriedMs: 12 * DAY_MS })).toBe(
      365 * DAY_MS,
    );
    // 10 paid days and 12 granted ones.
    expect(switchRefundTakesBack({ start: NOW, end: at(365), basisExpires: at(22), carriedMs: 12 * DAY_MS })).toBe(
      355 * DAY_MS,
    );
  });
  it('back and forth: refunded, then switched again later, the month is credited for what is left of it then', () => {
    // Refunded: back to the month ending at(15); five days later, 10 days are left: 1299 × 10/30 = 433.
    const q = quoteSwitch({
      now: at(5),
      current: MONTH,
      target: YEAR,
      targetPriceMinor: 5999,
      currency: 'USD',
      renews: true,
      expiresAt: at(15),
      periods: [period(1299, 'USD', 15, 30)],
    });
    expect(q).toMatchObject({ kind: 'now', creditMinor: 433, chargeMinor: 5566 });
  });
  it('never more than the period, never negative', () => {
    expect(switchRefundTakesBack({ start: NOW, end: at(365), basisExpires: at(-1), carriedMs: 0 })).toBe(365 * DAY_MS);
    expect(switchRefundTakesBack({ start: NOW, end: at(365), basisExpires: at(400), carriedMs: 0 })).toBe(0);
  });
});
