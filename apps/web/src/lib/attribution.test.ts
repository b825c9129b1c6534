import { beforeEach, describe, expect, it } from 'vitest';
import { captureCheckoutParams, collectAttribution, externalReferrer } from './attribution';
import { getCookie } from './cookies';

beforeEach(() => {
  localStorage.clear();
  for (const c of ['vl-cid', 'utm_source', 'utm_medium', 'utm_campaign', 'referrer', 'a_aid', 'ref']) document.cookie = `${c}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`;
});

describe('attribution', () => {
  it('captures the checkout query parameters and a sign-up carries them', () => {
    captureCheckoutParams(new URLSearchParams('referralID=r1&a_aid=pap7&friendID=f2&vcommID=v3&myleadID=m4&voluum_id=vol5&junk=x'));
    expect(localStorage.getItem('papReferralID')).toBe('pap7');
    expect(getCookie('vl-cid')).toBe('vol5');
    document.cookie = 'utm_source=newsletter; path=/';
    document.cookie = `referrer=${encodeURIComponent('https://search.example/?q=vpn')}; path=/`;
    expect(collectAttribution()).toEqual({
      referralID: 'r1',
      friendID: 'f2',
      vcommID: 'v3',
      myLeadID: 'm4',
      papReferralID: 'pap7',
      voluumID: 'vol5',
      utmSource: 'newsletter',
      referrer: 'https://search.example/?q=vpn',
    });
  });

  it('ignores junk values', () => {
    captureCheckoutParams(new URLSearchParams(`referralID=${encodeURIComponent('<script>')}&friendID=${'x'.repeat(300)}`));
    expect(localStorage.getItem('referralID')).toBeNull();
    expect(localStorage.getItem('friendID')).toBeNull();
  });

  it('sets the campaign cookies: a_aid, ref, utm_*, and the referring site once', () => {
    const ref = captureCheckoutParams(
      new URLSearchParams('referralID=r9&a_aid=pap1&utm_source=news&utm_medium=email&utm_campaign=spring%20sale'),
      'https://blog.example/post?id=1',
      'https://vpn.example',
    );
    expect(ref).toBe('r9');
    expect(getCookie('a_aid')).toBe('pap1');
    expect(getCookie('ref')).toBe('r9');
    expect(getCookie('utm_source')).toBe('news');
    expect(getCookie('utm_medium')).toBe('email');
    expect(getCookie('utm_campaign')).toBe('spring sale');
    expect(getCookie('referrer')).toBe('https://blog.example/post?id=1');
    // First touch: a later referrer does not replace it; our own pages never count.
    captureCheckoutParams(new URLSearchParams(''), 'https://other.example/', 'https://vpn.example');
    expect(getCookie('referrer')).toBe('https://blog.example/post?id=1');
    expect(externalReferrer('https://vpn.example/plans', 'https://vpn.example')).toBeNull();
    expect(externalReferrer('javascript:alert(1)', 'https://vpn.example')).toBeNull();
    expect(captureCheckoutParams(new URLSearchParams('utm_source=%3Cscript%3E'))).toBeNull();
    expect(getCookie('utm_source')).toBe('news');
  });
});
