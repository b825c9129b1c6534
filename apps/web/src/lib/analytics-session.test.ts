import { afterEach, describe, expect, it } from 'vitest';
import { testUser } from '../test/fixtures';
import { FALLBACK_BRAND, setBrand } from './brand';
import { session } from './session';

type W = Window & { dataLayer?: unknown[] };

afterEach(() => {
  setBrand(FALLBACK_BRAND);
  delete (window as W).dataLayer;
});

describe('the session tells analytics who is signed in', () => {
  it('a sign-in or sign-up identifies the user; sign-out clears it', async () => {
    setBrand({
      ...FALLBACK_BRAND,
      scripts: [{ kind: 'analytics', src: 'https://www.googletagmanager.com/gtag/js?id=G-X' }],
    });
    session.signedIn({ token: 't'.repeat(40), user: testUser({ id: 314 }) });
    expect((window as W).dataLayer).toEqual([{ event: 'identify', userId: '314' }]);
    await session.signOut({ callApi: false, navigate: false });
    expect((window as W).dataLayer!.at(-1)).toEqual({ event: 'logout', userId: null });
  });
});
