import { beforeEach, describe, expect, it } from 'vitest';
import { captureCheckoutParams, collectAttribution } from './attribution';
import { getCookie } from './cookies';

beforeEach(() => {
  localStorage.clear();
  for (const c of ['vl-cid', 'utm_source', 'referrer']) document.cookie = `${c}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`;
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
});
