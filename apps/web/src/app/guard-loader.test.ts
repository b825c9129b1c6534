import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('../lib/notify', () => ({ snackbar: vi.fn() }));
vi.mock('i18next', () => ({ default: { t: (k: string) => `t:${k}` } }));

import { applyGuard } from './guard-loader';
import { rootLoader } from './router';
import { snackbar } from '../lib/notify';
import { session } from '../lib/session';

function thrown(fn: () => unknown): Response {
  try {
    fn();
  } catch (e) {
    return e as Response;
  }
  throw new Error('expected a redirect');
}

beforeEach(() => {
  localStorage.clear();
  vi.mocked(snackbar).mockClear();
});

describe('applyGuard', () => {
  it('allows', () => {
    expect(applyGuard({ kind: 'allow' })).toBeNull();
  });

  it('redirect_status=failed: resets the payment status, clears the subscription hash, goes to /plans', () => {
    session.setPaymentStatus('processing');
    localStorage.setItem('userSubscrHash', 'h');
    localStorage.setItem('userSubscrHashTime', '1');
    localStorage.setItem('tariffName', 'Yearly');
    const res = thrown(() =>
      applyGuard({ kind: 'redirect', to: '/plans', effects: ['resetPaymentStatus', 'clearSubscriptionHash'] }),
    );
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/plans');
    expect(session.get().paymentStatus).toBe('processed');
    expect(localStorage.getItem('userSubscrHash')).toBeNull();
    expect(localStorage.getItem('userSubscrHashTime')).toBeNull();
    expect(localStorage.getItem('tariffName')).toBe('Yearly');
  });

  it('shows the guard message for its duration', () => {
    thrown(() => applyGuard({ kind: 'redirect', to: '/plans', message: { key: 'guard.notVerified', ms: 8000 } }));
    expect(snackbar).toHaveBeenCalledWith('t:guard.notVerified', expect.objectContaining({ ms: 8000 }));
  });

  it('opens the affiliate portal in a new tab and goes to the dashboard', () => {
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    const res = thrown(() =>
      applyGuard({ kind: 'external', url: 'https://partners.example.com', newTab: true, then: '/dashboard' }),
    );
    expect(open).toHaveBeenCalledWith('https://partners.example.com', '_blank', 'noopener,noreferrer');
    expect(res.headers.get('location')).toBe('/dashboard');
  });
});

describe('rootLoader', () => {
  const args = (url: string) =>
    ({ request: new Request(url), params: {}, context: {} }) as Parameters<typeof rootLoader>[0];

  it('?selectedPlan=X → /plans/X', () => {
    const res = thrown(() => rootLoader(args('http://localhost/?selectedPlan=yearly')));
    expect(res.headers.get('location')).toBe('/plans/yearly');
  });

  it('ignores a hostile plan name and an already matching path', () => {
    expect(rootLoader(args('http://localhost/?selectedPlan=..%2F..%2Fx'))).toBeNull();
    expect(rootLoader(args('http://localhost/plans/yearly?selectedPlan=yearly'))).toBeNull();
  });
});
