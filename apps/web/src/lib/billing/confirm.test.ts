import { describe, expect, it } from 'vitest';
import type { PlanInfo } from '@warren/contract';
import { CONFIRM_TIMEOUT_MS, confirmState } from './confirm';

const NOW = Date.UTC(2026, 0, 10, 12);
const DEADLINE = NOW + CONFIRM_TIMEOUT_MS;
const last = (status: NonNullable<PlanInfo['lastPayment']>['status']): PlanInfo['lastPayment'] => ({
  id: 'pay_1',
  tariff_id: 3,
  tariff_name: '1 Year',
  amount: 5999,
  currency: 'USD',
  status,
  provider: 'sandbox',
  created_at: new Date(NOW).toISOString(),
  paid_at: null,
});

describe('confirming a payment', () => {
  it('waits while the last checkout is open at the provider, and stops at the stated time', () => {
    const info = { paymentStatus: 'processing' as const, lastPayment: last('pending') };
    expect(confirmState(info, NOW, DEADLINE)).toBe('waiting');
    expect(confirmState(info, DEADLINE - 1, DEADLINE)).toBe('waiting');
    expect(confirmState(info, DEADLINE, DEADLINE)).toBe('timeout');
    expect(CONFIRM_TIMEOUT_MS).toBeLessThanOrEqual(2 * 60_000);
    // Before the first answer: waiting, and the deadline still holds.
    expect(confirmState(undefined, NOW, DEADLINE)).toBe('waiting');
    expect(confirmState(undefined, DEADLINE, DEADLINE)).toBe('timeout');
  });

  it('a pending checkout older than the server keeps as processing still does not read as paid', () => {
    expect(confirmState({ paymentStatus: 'processed', lastPayment: last('pending') }, DEADLINE, DEADLINE)).toBe(
      'timeout',
    );
  });

  it('ends with the outcome: paid, or declined/cancelled', () => {
    expect(confirmState({ paymentStatus: 'processed', lastPayment: last('succeeded') }, NOW, DEADLINE)).toBe('paid');
    expect(confirmState({ paymentStatus: 'processed', lastPayment: last('failed') }, NOW, DEADLINE)).toBe('failed');
    expect(confirmState({ paymentStatus: 'processed', lastPayment: null }, NOW, DEADLINE)).toBe('paid');
    expect(confirmState({ paymentStatus: 'processing', lastPayment: undefined }, DEADLINE, DEADLINE)).toBe('timeout');
  });
});
