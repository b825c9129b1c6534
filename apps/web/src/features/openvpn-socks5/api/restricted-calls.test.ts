import { afterEach, expect, it, vi } from 'vitest';
import { FALLBACK_BRAND, setBrand } from '../../../lib/brand';
import { setToken } from '../../../lib/token';
import { expectRestrictedCall } from '../../../test/restricted';
import { fetchOvpn, getServices, resetCredentials } from './services';

// On a restricted host (README: Restricted hosts) the OpenVPN/SOCKS5 password is read and reset encrypted.
afterEach(() => {
  vi.unstubAllGlobals();
  setBrand(FALLBACK_BRAND);
  setToken(null);
});

const credentials = { username: 'wabcdefghijk', password: 'p4ssw0rd-abcdefghijk' };

it('getServices: the session inside the encrypted body, the credentials in the encrypted answer', async () => {
  const overview = { access: 'paid', credentials, socksAvailable: true, adblock: false, locations: [] };
  await expectRestrictedCall(async () => expect((await getServices('en')).credentials).toEqual(credentials), {
    path: '/api/setup/services/restrictedGet',
    answer: { data: overview },
    inside: { langCode: 'en' },
    sessionField: 'token',
    clear: [],
  });
});

it('resetCredentials: the new password in the encrypted answer', async () => {
  await expectRestrictedCall(async () => expect(await resetCredentials()).toEqual(credentials), {
    path: '/api/setup/services/credentials/restrictedReset',
    answer: { data: credentials, message: 'ok' },
    inside: {},
    sessionField: 'token',
    clear: [],
  });
});

it('fetchOvpn: the file (the Keenetic one holds the password) in the encrypted answer', async () => {
  const text = 'client\n<auth-user-pass>\nwabcdefghijk\np4ssw0rd-abcdefghijk\n</auth-user-pass>';
  await expectRestrictedCall(
    async () =>
      expect(await fetchOvpn({ location: 'de-frankfurt', protocol: 'udp', variant: 'keenetic' }, 'en')).toBe(text),
    {
      path: '/api/setup/openvpn/restrictedConfig',
      answer: { data: { fileName: 'x.ovpn', text } },
      inside: { location: 'de-frankfurt', variant: 'keenetic', langCode: 'en' },
      sessionField: 'token',
      clear: [],
    },
  );
});
