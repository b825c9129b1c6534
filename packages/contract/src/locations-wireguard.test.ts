import { describe, expect, it } from 'vitest';
import { langCodeQuery, mayUseLocation, platformOf, vpnAccess } from './locations.js';
import { isWgKey, renderWgConfig, wgConfigFileName } from './wireguard.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const base = {
  accountStatus: 'Active',
  tariffKey: '1-year',
  subscriptionExpiresAt: '2025-07-01T00:00:00Z' as string | null,
  deletedAt: null,
};

describe('vpnAccess (the one access rule)', () => {
  it.each([
    ['paid and current', base, 'paid'],
    ['lifetime (no expiry)', { ...base, subscriptionExpiresAt: null }, 'paid'],
    ['free plan', { ...base, tariffKey: 'free-plan', subscriptionExpiresAt: null }, 'free'],
    [
      'free plan with a stale expiry',
      { ...base, tariffKey: 'free-plan', subscriptionExpiresAt: '2020-01-01T00:00:00Z' },
      'free',
    ],
    ['expired', { ...base, subscriptionExpiresAt: '2025-06-01T11:59:59Z' }, 'none'],
    ['expiring exactly now', { ...base, subscriptionExpiresAt: NOW.toISOString() }, 'none'],
    ['not active (unverified)', { ...base, accountStatus: 'Inactive' }, 'none'],
    ['suspended', { ...base, accountStatus: 'Suspended' }, 'none'],
    ['deleted', { ...base, deletedAt: '2025-05-01T00:00:00Z' }, 'none'],
    ['deleted free', { ...base, tariffKey: 'free-plan', deletedAt: new Date() }, 'none'],
  ] as const)('%s → %s', (_name, subject, expected) => {
    expect(vpnAccess(subject, NOW)).toBe(expected);
  });

  it('maps access to locations: free users only on free ones, nobody without access', () => {
    expect(mayUseLocation('paid', true)).toBe(true);
    expect(mayUseLocation('paid', false)).toBe(true);
    expect(mayUseLocation('free', false)).toBe(true);
    expect(mayUseLocation('free', true)).toBe(false);
    expect(mayUseLocation('none', false)).toBe(false);
    expect(mayUseLocation('none', true)).toBe(false);
  });
});

describe('WireGuard config rendering', () => {
  const input = {
    privateKey: 'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=',
    addresses: ['10.64.0.2', 'fd77:6172:7265::2'],
    dns: ['10.64.0.1', 'fd77:6172:7265::1'],
    serverPublicKey: 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=',
    endpoint: 'de-fra-1.nodes.warren.example:51820',
    title: 'Germany, Frankfurt',
  };
  it('renders a wg-quick file with host prefixes, full tunnel and keepalive', () => {
    expect(renderWgConfig(input)).toBe(
      [
        '# Germany, Frankfurt',
        '[Interface]',
        'PrivateKey = yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=',
        'Address = 10.64.0.2/32, fd77:6172:7265::2/128',
        'DNS = 10.64.0.1, fd77:6172:7265::1',
        '',
        '[Peer]',
        'PublicKey = xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=',
        'AllowedIPs = 0.0.0.0/0, ::/0',
        'Endpoint = de-fra-1.nodes.warren.example:51820',
        'PersistentKeepalive = 25',
        '',
      ].join('\n'),
    );
  });
  it('cannot be made to carry an extra section through a value', () => {
    const out = renderWgConfig({ ...input, title: 'x\n[Peer]\nPublicKey = evil', endpoint: 'h:1\n[Peer]' });
    expect(out.match(/^\[Peer\]$/gm)).toHaveLength(1);
    expect(out).not.toMatch(/^PublicKey = evil/m);
  });
  it('omits DNS when none and names files within the 15-character interface limit', () => {
    expect(renderWgConfig({ ...input, dns: [] })).not.toContain('DNS');
    expect(wgConfigFileName({ countryCode: 'DE', slug: 'de-fra' })).toBe('wr-de-fra.conf');
    expect(
      wgConfigFileName({ countryCode: 'US', slug: 'us-very-long-location-name' }).replace('.conf', '').length,
    ).toBeLessThanOrEqual(15);
  });
});

describe('keys, languages and platforms', () => {
  it('accepts only canonical 32-byte base64 keys', () => {
    expect(isWgKey('xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=')).toBe(true);
    expect(isWgKey('xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dh=')).toBe(false); // non-canonical last char
    expect(isWgKey('xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg')).toBe(false);
    expect(isWgKey('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=')).toBe(false);
  });
  it('maps language codes', () => {
    expect(langCodeQuery.parse({ langCode: 'ru-RU' }).langCode).toBe('ru');
    expect(langCodeQuery.parse({ langCode: 'ZH' }).langCode).toBe('zh');
    expect(langCodeQuery.parse({ langCode: 'de' }).langCode).toBe('en');
    expect(langCodeQuery.parse({}).langCode).toBe('en');
  });
  it('recognises platforms from user agents', () => {
    expect(platformOf('Mozilla/5.0 (Windows NT 10.0; Win64; x64)')).toBe('windows');
    expect(platformOf('Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7)')).toBe('mac');
    expect(platformOf('Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)')).toBe('ios');
    expect(platformOf('Mozilla/5.0 (Linux; Android 14; Pixel 8)')).toBe('android');
    expect(platformOf('Mozilla/5.0 (Linux; Android 9; BRAVIA 4K GB) TV')).toBe('android-tv');
    expect(platformOf('Mozilla/5.0 (X11; Linux x86_64)')).toBe('linux');
  });
});
