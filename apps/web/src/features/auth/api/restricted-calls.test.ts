import { afterEach, expect, it, vi } from 'vitest';
import { FALLBACK_BRAND, setBrand } from '../../../lib/brand';
import { setToken } from '../../../lib/token';
import { testUser } from '../../../test/fixtures';
import { expectRestrictedCall } from '../../../test/restricted';
import { onetimeLogin } from './onetime-login';
import { resendVerificationByLink } from './resend-verification-by-link';

// On a restricted host (README: Restricted hosts) an emailed link's token goes encrypted.
afterEach(() => {
  vi.unstubAllGlobals();
  setBrand(FALLBACK_BRAND);
  setToken(null);
});

const LINK = 'link-token-abcdefghijklmnop';

it('onetimeLogin: the link inside the encrypted body, the new session in the encrypted answer', async () => {
  const session = { user: testUser({ email: 'ann@example.com' }), token: 'new-session-token-0123456789abcdef' };
  await expectRestrictedCall(async () => expect(await onetimeLogin({ userID: 7, token: LINK })).toEqual(session), {
    path: '/api/users/restrictedOnetimeLogin',
    answer: { data: session },
    inside: { userID: 7, token: LINK },
    sessionField: null,
    clear: [LINK],
  });
});

it('resendVerificationByLink: the old link inside the encrypted body', async () => {
  await expectRestrictedCall(() => resendVerificationByLink({ userId: 7, token: LINK }), {
    path: '/api/users/restrictedResendVerificationByLink',
    answer: { data: { ok: true }, message: 'sent' },
    inside: { userId: 7, token: LINK },
    sessionField: null,
    clear: [LINK],
  });
});
