import { afterEach, expect, it, vi } from 'vitest';
import { FALLBACK_BRAND, setBrand } from '../../../lib/brand';
import { setToken } from '../../../lib/token';
import { expectRestrictedCall } from '../../../test/restricted';
import { getStealth } from './stealth-get';
import { resetStealth } from './stealth-reset';

// On a restricted host (README: Restricted hosts) the subscription URL is read and reset encrypted.
afterEach(() => {
  vi.unstubAllGlobals();
  setBrand(FALLBACK_BRAND);
  setToken(null);
});

const overview = { subscriptionUrl: 'http://proxy.localhost/api/sub/secret-abcdefghijklmnop', links: [] };

it('getStealth: the session inside the encrypted body, the subscription URL in the encrypted answer', async () => {
  await expectRestrictedCall(async () => expect(await getStealth('en')).toEqual({ kind: 'ready', overview }), {
    path: '/api/setup/stealth/restrictedGet',
    answer: { data: overview },
    inside: { langCode: 'en' },
    sessionField: 'token',
    clear: [],
  });
});

it('resetStealth: the new subscription URL in the encrypted answer', async () => {
  await expectRestrictedCall(async () => expect(await resetStealth('en')).toEqual(overview), {
    path: '/api/setup/stealth/restrictedReset',
    answer: { data: overview, message: 'ok' },
    inside: { langCode: 'en' },
    sessionField: 'token',
    clear: [],
  });
});
