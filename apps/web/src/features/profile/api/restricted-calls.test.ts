import { afterEach, expect, it, vi } from 'vitest';
import { FALLBACK_BRAND, setBrand } from '../../../lib/brand';
import { setToken } from '../../../lib/token';
import { expectRestrictedCall } from '../../../test/restricted';
import { changePassword } from './change-password';
import { deleteAccount } from './delete-account';
import { getProfile } from './get-profile';
import { setNewPassword } from './set-new-password';
import { disableTwoFactor } from './two-factor-disable';
import { enableTwoFactor } from './two-factor-enable';
import { startTwoFactor } from './two-factor-setup';
import { updateProfile } from './update-profile';

// On a restricted host (README: Restricted hosts) every profile call that carries the email, a
// password, a code or the TOTP secret goes encrypted, the session inside the body.
afterEach(() => {
  vi.unstubAllGlobals();
  setBrand(FALLBACK_BRAND);
  setToken(null);
});

const PASS = 'secret-pass-123';
const LINK = 'link-token-abcdefghijklmnop';
const profile = {
  firstName: 'Ann',
  secondName: '',
  email: 'ann@example.com',
  language: 'en',
  marketingEmails: false,
  twoFactorEnabled: false,
  recoveryCodesLeft: 0,
};
const ok = { data: { ok: true }, message: 'ok' };

it.each([
  ['getProfile', () => getProfile(), '/api/profile/restrictedGet', { data: profile }, {}, 'token', []],
  [
    'updateProfile',
    () => updateProfile({ firstName: 'Ann' }),
    '/api/profile/restrictedUpdate',
    { data: profile },
    { firstName: 'Ann' },
    'token',
    ['Ann'],
  ],
  [
    'changePassword',
    () => changePassword({ currentPassword: PASS, password: 'next-pass-456', password_confirmation: 'next-pass-456' }),
    '/api/profile/restrictedPassword',
    ok,
    { currentPassword: PASS },
    'token',
    [PASS, 'next-pass-456'],
  ],
  [
    'setNewPassword',
    () => setNewPassword({ token: LINK, password: PASS, password_confirmation: PASS }),
    '/api/users/restrictedSetNewPassword',
    ok,
    { token: LINK, password: PASS },
    'sessionToken',
    [LINK, PASS],
  ],
  [
    'startTwoFactor',
    () => startTwoFactor(),
    '/api/profile/2fa/restrictedSetup',
    { data: { secret: 'JBSWY3DPEHPK3PXP', otpauthUrl: 'otpauth://totp/x?secret=JBSWY3DPEHPK3PXP' } },
    {},
    'token',
    [],
  ],
  [
    'enableTwoFactor',
    () => enableTwoFactor({ code: '123456' }),
    '/api/profile/2fa/restrictedEnable',
    { data: { recoveryCodes: ['aaaa-bbbb'] } },
    { code: '123456' },
    'token',
    ['123456'],
  ],
  [
    'disableTwoFactor',
    () => disableTwoFactor({ password: PASS, code: '123456' }),
    '/api/profile/2fa/restrictedDisable',
    ok,
    { password: PASS, code: '123456' },
    'token',
    [PASS, '123456'],
  ],
  [
    'deleteAccount',
    () => deleteAccount({ password: PASS }),
    '/api/users/restrictedAnnihilation',
    { data: { ok: true }, message: 'Account deleted' },
    { password: PASS },
    'token',
    [PASS],
  ],
] as const)(
  '%s goes encrypted, the session inside the body, nothing in clear',
  async (_what, call, path, answer, inside, sessionField, clear) => {
    await expectRestrictedCall(call, { path, answer, inside, sessionField, clear: [...clear] });
  },
);

it('deleteAccount answers the message, and getProfile the profile, from the encrypted answer', async () => {
  await expectRestrictedCall(async () => expect(await deleteAccount({ password: PASS })).toBe('Account deleted'), {
    path: '/api/users/restrictedAnnihilation',
    answer: { data: { ok: true }, message: 'Account deleted' },
    inside: {},
    sessionField: 'token',
    clear: [],
  });
  await expectRestrictedCall(async () => expect(await getProfile()).toEqual(profile), {
    path: '/api/profile/restrictedGet',
    answer: { data: profile },
    inside: {},
    sessionField: 'token',
    clear: [],
  });
});
