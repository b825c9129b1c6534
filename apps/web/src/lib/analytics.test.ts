import { describe, expect, it, vi } from 'vitest';
import { clearAnalyticsUser, identifyUser } from './analytics';

const withAnalytics = {
  scripts: [{ kind: 'tag-manager' as const, src: 'https://www.googletagmanager.com/gtm.js?id=GTM-X' }],
};

describe('analytics identity (spec section 4, auth state)', () => {
  it('identifies the signed-in user by id (never the email) and clears it on sign-out', () => {
    const gtag = vi.fn<(...args: unknown[]) => void>();
    const hj = vi.fn<(...args: unknown[]) => void>();
    const w = { dataLayer: [] as unknown[], gtag, hj } as unknown as Window & {
      dataLayer: unknown[];
      gtag: typeof gtag;
      hj: typeof hj;
    };
    identifyUser(42, withAnalytics, w);
    expect(w.dataLayer).toEqual([{ event: 'identify', userId: '42' }]);
    expect(w.gtag).toHaveBeenCalledWith('set', { user_id: '42' });
    expect(w.hj).toHaveBeenCalledWith('identify', '42', {});
    clearAnalyticsUser(withAnalytics, w);
    expect(w.dataLayer.at(-1)).toEqual({ event: 'logout', userId: null });
    expect(w.gtag).toHaveBeenLastCalledWith('set', { user_id: null });
  });

  it('queues for a tag manager that has not loaded yet, and does nothing where the brand runs no analytics', () => {
    const early = {} as Window & { dataLayer?: unknown[] };
    identifyUser(7, withAnalytics, early);
    expect(early.dataLayer).toEqual([{ event: 'identify', userId: '7' }]);
    const none = {} as Window & { dataLayer?: unknown[] };
    identifyUser(7, { scripts: [] }, none);
    clearAnalyticsUser({ scripts: [{ kind: 'help-chat', src: 'https://chat.example/x.js' }] }, none);
    expect(none.dataLayer).toBeUndefined();
  });
});
