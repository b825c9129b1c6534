import { describe, expect, it } from 'vitest';
import { isPaymentSuccessMessage, paymentReturnTarget } from './payment-return';
import { nextStep } from './payment-flow';

describe('redirect_status on the payment return', () => {
  it('succeeded → thank-you, failed → failed-payment, anything else → plans', () => {
    expect(paymentReturnTarget('succeeded')).toBe('/thank-you');
    expect(paymentReturnTarget('processing')).toBe('/thank-you');
    expect(paymentReturnTarget('failed')).toBe('/failed-payment');
    expect(paymentReturnTarget('requires_payment_method')).toBe('/failed-payment');
    expect(paymentReturnTarget('FAILED')).toBe('/failed-payment');
    expect(paymentReturnTarget(null)).toBe('/plans');
    expect(paymentReturnTarget('<script>')).toBe('/plans');
  });
});

describe('payment success message', () => {
  const own = 'https://vpn.example';
  it('accepts paymentSuccess from our origin, a provider or a brand host', () => {
    expect(isPaymentSuccessMessage({ origin: own, data: { event: 'paymentSuccess' } }, own)).toBe(true);
    expect(
      isPaymentSuccessMessage({ origin: 'https://checkout.stripe.com', data: { event: 'paymentSuccess' } }, own),
    ).toBe(true);
    expect(
      isPaymentSuccessMessage({ origin: 'https://proxy.example', data: { event: 'paymentSuccess' } }, own, [
        'proxy.example',
      ]),
    ).toBe(true);
  });
  it('ignores other origins, other events and junk', () => {
    expect(isPaymentSuccessMessage({ origin: 'https://evil.example', data: { event: 'paymentSuccess' } }, own)).toBe(
      false,
    );
    expect(
      isPaymentSuccessMessage({ origin: 'http://proxy.example', data: { event: 'paymentSuccess' } }, own, [
        'proxy.example',
      ]),
    ).toBe(false);
    expect(isPaymentSuccessMessage({ origin: own, data: { event: 'paymentFailed' } }, own)).toBe(false);
    expect(isPaymentSuccessMessage({ origin: own, data: 'paymentSuccess' }, own)).toBe(false);
    expect(isPaymentSuccessMessage({ origin: own, data: null }, own)).toBe(false);
    expect(isPaymentSuccessMessage({ origin: 'null', data: { event: 'paymentSuccess' } }, own)).toBe(false);
  });
});

describe('after createPayment', () => {
  it('goes to the hosted page, or thanks at once for a charged mandate', () => {
    expect(nextStep({ redirectUrl: 'http://127.0.0.1/sandbox/checkout/sbx_1' })).toEqual({
      kind: 'redirect',
      url: 'http://127.0.0.1/sandbox/checkout/sbx_1',
    });
    expect(nextStep({ redirectUrl: 'javascript:alert(1)' })).toEqual({ kind: 'unsupported' });
    expect(nextStep({ status: 'succeeded' })).toEqual({ kind: 'thankYou' });
    expect(nextStep({})).toEqual({ kind: 'unsupported' });
  });
});
