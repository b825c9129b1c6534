import { describe, expect, it } from 'vitest';
import { loginBody, registerBody } from './account.js';
import { initials, isActivated, isTestAccountEmail } from './account-rules.js';
import { brandify } from './brand-rules.js';
import { isAuthRoute, isKnownRoute } from './routes.js';

describe('initials', () => {
  it.each([
    [{ firstName: 'anna', email: 'x@y.z' }, 'AN'],
    [{ firstName: '  ', email: 'bob@y.z' }, 'BO'],
    [{ firstName: 'Ж', email: 'q@y.z' }, 'Ж'],
  ])('%o -> %s', (u, expected) => expect(initials(u)).toBe(expected));
});

describe('activation', () => {
  it('needs verification on ordinary brands and an active (paid) account on payment-first ones', () => {
    expect(isActivated({ verified: 1, accountStatus: 'Active' }, false)).toBe(true);
    expect(isActivated({ verified: 0, accountStatus: 'Inactive' }, false)).toBe(false);
    expect(isActivated({ verified: 1, accountStatus: 'Inactive' }, true)).toBe(false);
    expect(isActivated({ verified: 0, accountStatus: 'Active' }, true)).toBe(true);
  });
});

describe('test accounts', () => {
  it('matches configured suffixes case-insensitively', () => {
    expect(isTestAccountEmail('QA@Test.Warren.Invalid', ['@test.warren.invalid'])).toBe(true);
    expect(isTestAccountEmail('qa@warren.example', ['@test.warren.invalid'])).toBe(false);
    expect(isTestAccountEmail('qa@warren.example', [''])).toBe(false);
  });
});

describe('schemas', () => {
  it('normalises email and reports the confirmation mismatch on password_confirmation', () => {
    const r = registerBody.safeParse({ email: ' A@B.COM ', password: 'password1', password_confirmation: 'password2' });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.'))).toEqual(['password_confirmation']);
    const ok = loginBody.parse({ email: ' A@B.COM ', password: 'x', extra: 'dropped' });
    expect(ok).toEqual({ email: 'a@b.com', password: 'x' });
  });
});

describe('brand and routes', () => {
  it('replaces VPN with Proxy on proxy brands only', () => {
    expect(brandify('Warren VPN | VPN downloads', 'proxy')).toBe('Warren Proxy | Proxy downloads');
    expect(brandify('Warren VPN', 'vpn')).toBe('Warren VPN');
  });
  it('knows the app routes', () => {
    expect(isKnownRoute('/dashboard')).toBe(true);
    expect(isKnownRoute('/plans/yearly')).toBe(true);
    expect(isKnownRoute('/nope')).toBe(false);
    expect(isAuthRoute('/sign-in')).toBe(true);
    expect(isAuthRoute('/dashboard')).toBe(false);
  });
});
