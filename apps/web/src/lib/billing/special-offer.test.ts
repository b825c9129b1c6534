import { beforeEach, describe, expect, it } from 'vitest';
import type { PlanInfo } from '@warren/contract';
import { dismissOffer, hoursLeft, readDismissedOffers, specialOfferBanner } from './special-offer';

const NOW = Date.UTC(2026, 0, 10, 12, 0, 0);
const H = 3600_000;
type Payment = PlanInfo['payments'][number];
const pay = (over: Partial<Payment> = {}): Payment => ({
  id: 'pay_1',
  tariff_id: 2,
  tariff_name: '1 Month',
  amount: 1104,
  currency: 'USD',
  status: 'succeeded',
  provider: 'sandbox',
  created_at: new Date(NOW - H).toISOString(),
  paid_at: new Date(NOW - H).toISOString(),
  ...over,
});
const banner = (payments: Payment[], extra: { now?: number; dismissed?: string[]; pathname?: string } = {}) =>
  specialOfferBanner({
    planInfo: { payments },
    nowMs: extra.now ?? NOW,
    dismissed: extra.dismissed ?? [],
    pathname: extra.pathname ?? '/dashboard',
  });

beforeEach(() => localStorage.clear());

describe('special offer banner', () => {
  it('counts down from 48 h after the single monthly payment', () => {
    expect(banner([pay()])).toEqual({ paymentId: 'pay_1', secondsLeft: 47 * 3600 });
    expect(hoursLeft(47 * 3600)).toBe(47);
    expect(hoursLeft(47 * 3600 - 1)).toBe(46);
  });
  it('hides under 60 s left and after 48 h', () => {
    expect(banner([pay({ created_at: new Date(NOW - 48 * H + 61_000).toISOString() })])?.secondsLeft).toBe(61);
    expect(banner([pay({ created_at: new Date(NOW - 48 * H + 59_000).toISOString() })])).toBeNull();
    expect(banner([pay({ created_at: new Date(NOW - 49 * H).toISOString() })])).toBeNull();
  });
  it('needs exactly one payment, of tariff 2, not refunded', () => {
    expect(banner([])).toBeNull();
    expect(banner([pay({ tariff_id: 3 })])).toBeNull();
    expect(banner([pay(), pay({ id: 'pay_2', tariff_id: 3 })])).toBeNull();
    expect(banner([pay({ status: 'refunded' })])).toBeNull();
  });
  it('hides on /thank-you, without plan info, and once closed for that payment', () => {
    expect(banner([pay()], { pathname: '/thank-you' })).toBeNull();
    expect(specialOfferBanner({ planInfo: undefined, nowMs: NOW, dismissed: [], pathname: '/dashboard' })).toBeNull();
    expect(banner([pay()], { dismissed: ['pay_1'] })).toBeNull();
    expect(banner([pay()], { dismissed: ['pay_0'] })).not.toBeNull();
  });
  it('remembers closed offers per payment', () => {
    expect(readDismissedOffers()).toEqual([]);
    dismissOffer('pay_1');
    dismissOffer('pay_1');
    expect(readDismissedOffers()).toEqual(['pay_1']);
    localStorage.setItem('specialOfferClosed', '{bad');
    expect(readDismissedOffers()).toEqual([]);
  });
});
