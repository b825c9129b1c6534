import { afterEach, describe, expect, it, vi } from 'vitest';
import { testUser } from '../../test/fixtures';
import { session } from '../session';
import { beginPayment, onReturnFromProvider } from './payment-flow';

afterEach(() => {
  session.setPaymentStatus('processed');
  localStorage.clear();
});

describe('payments never lock a payer out', () => {
  it('a paying member who leaves for the provider keeps every page; a buyer without access waits for the payment', () => {
    beginPayment(
      '1 Year',
      testUser({ subscriptionData: { tariffKey: '1-month', tariffName: '1 Month', expiresAt: null } }),
      false,
    );
    expect(session.get().paymentStatus).toBe('processed');
    expect(localStorage.getItem('tariffName')).toBe('1 Year');
    beginPayment('1 Year', testUser({ verified: 0 }), false);
    expect(session.get().paymentStatus).toBe('processing');
    session.setPaymentStatus('processed');
    // Payment-first brands: access comes with the payment, so an inactive account waits.
    beginPayment('1 Year', testUser({ accountStatus: 'Inactive' }), true);
    expect(session.get().paymentStatus).toBe('processing');
  });

  it('Back from the provider (page restored from the back/forward cache) makes the page usable and stops waiting', () => {
    const target = new EventTarget();
    const reset = vi.fn();
    const stop = onReturnFromProvider(reset, target as unknown as Window);
    session.setPaymentStatus('processing');
    target.dispatchEvent(Object.assign(new Event('pageshow'), { persisted: false }));
    expect(reset).not.toHaveBeenCalled();
    expect(session.get().paymentStatus).toBe('processing');
    target.dispatchEvent(Object.assign(new Event('pageshow'), { persisted: true }));
    expect(reset).toHaveBeenCalledTimes(1);
    expect(session.get().paymentStatus).toBe('processed');
    stop();
    target.dispatchEvent(Object.assign(new Event('pageshow'), { persisted: true }));
    expect(reset).toHaveBeenCalledTimes(1);
  });
});
